/*
 * "Compare two": per-CPU figures of two traces side by side (two real traces,
 * or a real one and a simulation exported as ftrace text, `kscope sim
 * --export ftrace`, uploaded like any trace).
 *
 * Per CPU, one definition for both sources:
 *
 *   busy        ns from each sched_switch to a task other than idle (next_pid != 0)
 *               until that CPU's next sched_switch (the stretch before a CPU's
 *               first switch and after its last is not counted: who ran there is
 *               not recorded in full)
 *   switches    sched_switch events on the CPU
 *   migrations  sched_migrate_task events with dest_cpu = the CPU (in) / orig_cpu (out)
 *
 * For a stored trace the server computes them (one read-only SELECT over its
 * events, POST /sql, CPU_STATS_SQL); for a trace held in the browser, from the
 * store's rows (cpuStatsFromStore). trace_compare.test.ts checks both on the
 * same capture against each other's definition.
 */
import { TYPE_MIGRATE, TYPE_SWITCH, type TraceStore } from './trace_store'
import { runSql } from './traces_api'

export interface CpuStats {
  cpu: number
  busyNs: number
  switches: number
  migrationsIn: number
  migrationsOut: number
}

export const CPU_STATS_SQL = `WITH sw AS (
  SELECT cpu, ts_ns, next_pid, lead(ts_ns) OVER (PARTITION BY cpu ORDER BY ts_ns) AS until
  FROM events WHERE type = 'sched_switch'),
busy AS (
  SELECT cpu, sum(CASE WHEN next_pid <> 0 AND until IS NOT NULL THEN until - ts_ns ELSE 0 END) AS busy_ns,
         count(*) AS switches FROM sw GROUP BY cpu),
mi AS (SELECT dest_cpu AS cpu, count(*) AS n FROM events WHERE type = 'sched_migrate_task' GROUP BY 1),
mo AS (SELECT orig_cpu AS cpu, count(*) AS n FROM events WHERE type = 'sched_migrate_task' GROUP BY 1),
cpus AS (SELECT cpu FROM busy UNION SELECT cpu FROM mi UNION SELECT cpu FROM mo)
SELECT c.cpu, coalesce(b.busy_ns, 0), coalesce(b.switches, 0), coalesce(mi.n, 0), coalesce(mo.n, 0)
FROM cpus c LEFT JOIN busy b USING (cpu) LEFT JOIN mi USING (cpu) LEFT JOIN mo USING (cpu)
WHERE c.cpu IS NOT NULL ORDER BY c.cpu`

export async function fetchCpuStats(id: string): Promise<CpuStats[]> {
  const r = await runSql(id, CPU_STATS_SQL)
  return r.rows.map((row) => ({
    cpu: Number(row[0]), busyNs: Number(row[1]), switches: Number(row[2]), migrationsIn: Number(row[3]),
    migrationsOut: Number(row[4]),
  }))
}

/** The same figures from a store holding every event of its trace. */
export function cpuStatsFromStore(s: TraceStore): CpuStats[] {
  const c = s.columns
  const by = new Map<number, CpuStats>()
  const get = (cpu: number) => {
    let st = by.get(cpu)
    if (!st) by.set(cpu, (st = { cpu, busyNs: 0, switches: 0, migrationsIn: 0, migrationsOut: 0 }))
    return st
  }
  for (const [cpu, rows] of s.byCpu) {
    let last = -1
    for (const i of rows) {
      if (c.type[i] !== TYPE_SWITCH) continue
      const st = get(cpu)
      st.switches++
      if (last >= 0 && c.f3[last] !== 0) st.busyNs += c.ts[i] - c.ts[last]
      last = i
    }
  }
  for (let i = 0; i < c.count; i++) {
    if (c.type[i] !== TYPE_MIGRATE) continue
    get(c.f3[i]).migrationsIn++
    get(c.f2[i]).migrationsOut++
  }
  return [...by.values()].filter((x) => x.cpu >= 0).sort((a, b) => a.cpu - b.cpu)
}

export interface CompareRow {
  cpu: number
  a: CpuStats | null
  b: CpuStats | null
}

/** One row per CPU either trace has, in CPU order. */
export function compareRows(a: readonly CpuStats[], b: readonly CpuStats[]): CompareRow[] {
  const cpus = [...new Set([...a.map((x) => x.cpu), ...b.map((x) => x.cpu)])].sort((x, y) => x - y)
  const am = new Map(a.map((x) => [x.cpu, x]))
  const bm = new Map(b.map((x) => [x.cpu, x]))
  return cpus.map((cpu) => ({ cpu, a: am.get(cpu) ?? null, b: bm.get(cpu) ?? null }))
}

/** Totals over all CPUs. */
export function totals(stats: readonly CpuStats[]): Omit<CpuStats, 'cpu'> {
  return stats.reduce((t, x) => ({ busyNs: t.busyNs + x.busyNs, switches: t.switches + x.switches,
    migrationsIn: t.migrationsIn + x.migrationsIn, migrationsOut: t.migrationsOut + x.migrationsOut }),
  { busyNs: 0, switches: 0, migrationsIn: 0, migrationsOut: 0 })
}

/** "+12.5 ms", "−3", "0": b minus a, with the unit. */
export function signedDelta(a: number, b: number, unit: 'ms' | ''): string {
  const d = unit === 'ms' ? (b - a) / 1e6 : b - a
  const text = unit === 'ms' ? Math.abs(d).toFixed(3) : Math.abs(d).toLocaleString('en')
  if (d === 0) return unit ? `0 ${unit}` : '0'
  return `${d > 0 ? '+' : '−'}${text}${unit ? ` ${unit}` : ''}`
}
