/**
 * Formats CPU numbers the way Linux prints a cpulist (sysfs shared_cpu_list,
 * taskset -c): sorted, runs collapsed, e.g. [0,1,2,3,192,193] -> "0-3,192-193".
 */
export function formatCpuList(cpus: Iterable<number>): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b)
  const runs: string[] = []
  for (let i = 0; i < sorted.length; ) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++
    runs.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`)
    i = j + 1
  }
  return runs.join(',')
}

/** A cache size for people: 32768 KiB -> "32 MiB", 57600 KiB -> "56.25 MiB", 48 KiB -> "48 KiB". */
export function formatKib(kib: number): string {
  if (kib >= 1024) return `${Number((kib / 1024).toFixed(2))} MiB`
  return `${kib} KiB`
}

/** "1 socket", "2 sockets". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

/** Parses a Linux cpulist ("0-3,8,10-11"); throws on malformed text. */
export function parseCpuList(text: string): number[] {
  const out: number[] = []
  if (!text) return out
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim())
    if (!m) throw new Error(`not a cpulist: ${JSON.stringify(text.slice(0, 40))}`)
    const a = Number(m[1])
    const b = m[2] === undefined ? a : Number(m[2])
    if (b < a || b - a > 65536) throw new Error(`not a cpulist: ${JSON.stringify(text.slice(0, 40))}`)
    for (let c = a; c <= b; c++) out.push(c)
  }
  return out
}
