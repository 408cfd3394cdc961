/*
 * The cpupri model's bridge: what a Simulation running "cpupri:<variant>" adds. One
 * call, cpupriView(), reads the model's three views (summary, perf c2c rows, the CPUs'
 * levels) and, for each priority bitmap the run touched, where its line lives now
 * (the cache model's ks_cache_line_places: the owner core and LLC), so a view can show
 * the line moving between sockets. Decoding is in cpupri_records.ts.
 */
import { KscopeError, KsStatus } from '../core_errors'
import type { SimInternals } from '../simulation'
import {
  CPUPRI_C2C_ROW_BYTES, CPUPRI_SUMMARY_BYTES, CPUPRI_VIEW, decodeCpupriC2cRows, decodeCpupriLevels, decodeCpupriSummary,
  writeCpupriViewRequest, type CpupriC2cRow, type CpupriSummary,
} from './cpupri_records'

/** Where one line of a bitmap object is now (ks_line_place). */
export interface CpupriLinePlace {
  /** The cache-model object, e.g. "cpupri_vec[99].mask" or "cpupri_vec[99].masks[1]". */
  object: string
  /** Core holding it Modified/Exclusive, -1 if none. */
  owner_core: number
  /** LLC of the owner, or the LLC that last held it; -1 if never cached. */
  owner_llc: number
  /** Private caches with a valid copy. */
  sharers: number
  /** 0 I, 1 S, 2 E, 3 M (machine-wide). */
  state: number
}

export interface CpupriView {
  summary: CpupriSummary
  /** Every c2c row, in the order the run first touched them. */
  rows: CpupriC2cRow[]
  /** Each CPU's cpupri level (cp->cpu_to_pri). */
  levels: number[]
  /** The first line of every bitmap object the rows name (level >= 0). */
  places: CpupriLinePlace[]
}

/** What the cpupri bridge adds to a Simulation. */
export interface CpupriSimulation {
  /** The model's state after the current step. Throws KscopeError (NOT_FOUND) if the run has no cpupri model. */
  cpupriView(): CpupriView
}

/** Rows read per view call (a classroom run has a few dozen; the seed's a few hundred). */
const ROWS_PER_CALL = 256

/** The cpupri methods of one simulation (listed in model_bridges.ts). */
export function attachCpupri(s: SimInternals): CpupriSimulation {
  const { sim } = s
  const { mod, text, views } = s.ctx
  /** Cache-model object ids by name, read once (the model adds its objects when the run is built). */
  let objectIds: Map<string, number> | null = null
  const objectId = (cache: number, name: string): number | undefined => {
    if (!objectIds) {
      objectIds = new Map()
      const n = mod._ks_cache_object_count(cache)
      s.countCalls(1 + n)
      for (let i = 0; i < n; i++) objectIds.set(text(mod._ks_cache_object_name(cache, i)), i)
    }
    return objectIds.get(name)
  }

  return {
    cpupriView() {
      s.live()
      const at = s.modelView(CPUPRI_SUMMARY_BYTES, (v, a) => writeCpupriViewRequest(v, a, CPUPRI_VIEW.SUMMARY))
      const summary = decodeCpupriSummary(views(), at)
      const rows: CpupriC2cRow[] = []
      for (let first = 0; first < summary.nr_rows; first += ROWS_PER_CALL) {
        const n = Math.min(ROWS_PER_CALL, summary.nr_rows - first)
        const r = s.modelView(n * CPUPRI_C2C_ROW_BYTES, (v, a) => writeCpupriViewRequest(v, a, CPUPRI_VIEW.C2C, first))
        rows.push(...decodeCpupriC2cRows(views(), r, n))
      }
      const l = s.modelView(Math.max(8, 4 * summary.nr_cpus), (v, a) => writeCpupriViewRequest(v, a, CPUPRI_VIEW.LEVELS))
      const levels = decodeCpupriLevels(views(), l, summary.nr_cpus)

      const cache = mod._ks_sim_cache(sim)
      if (!cache) throw new KscopeError(KsStatus.NOT_FOUND, 'not found', 'ks_sim_cache (cpupri view)')
      const places: CpupriLinePlace[] = []
      for (const object of new Set(rows.filter((r) => r.level >= 0 && r.object.includes('mask')).map((r) => r.object))) {
        const id = objectId(cache, object)
        if (id === undefined) continue
        s.countCalls(1)
        const p = mod._ks_cache_line_places(cache, id, BigInt(Math.max(0, Math.floor(summary.now_ns))))
        if (!p) continue
        const w = p >>> 2
        const i32 = views().i32
        places.push({ object, owner_core: i32[w], owner_llc: i32[w + 1], sharers: i32[w + 2], state: i32[w + 3] })
      }
      return { summary, rows, levels, places }
    },
  }
}

/** The cpupri model adds nothing to the loaded core itself. */
export type CpupriCore = Record<never, never>

/** The cpupri methods of a loaded core (listed in model_bridges.ts): none. */
export function bindCpupriCore(): CpupriCore {
  return {}
}
