/*
 * The lesson's workload: seed 000's benchmark (threads pinned one per core,
 * a delay between bursts) or a hand-made variation: add or remove threads, pin
 * a thread to another CPU, let the threads run anywhere or anywhere in one L3,
 * change the delay, the warm-up, the loops, the pacing. Every change starts a
 * new run (an action through onRun); the view keeps no state but drafts.
 */
import { useEffect, useState } from 'react'
import {
  BENCHMARK_WORKLOAD, CACHE_MODES, LIMITS, addThread, onePerL3, pinThread, removeThread, setPlacementKind,
  type CacheMode, type LessonWorkload, type ThreadOrder,
} from '../../core/lesson/lesson_state'
import type { Topology } from '../../core/shared/types'

export interface WorkloadPanelProps {
  workload: LessonWorkload
  cache: CacheMode
  seed: number
  topology: Topology
  /** The core's default eviction rates (what "busy" means), bytes/us. */
  busyRates: { privateBackgroundBytesPerUs: number; llcBackgroundBytesPerUs: number } | null
  onChange: (w: LessonWorkload) => void
  onModel: (change: { cache?: CacheMode; seed?: number }) => void
  onClose: () => void
}

const CACHE_TEXT: Record<CacheMode, string> = {
  idle: 'idle machine: nothing else evicts the areas',
  busy: "busy machine: kscope's default background traffic",
}

/** A number field that commits on Enter or blur (a bad value goes back to the current one). */
function NumberField(props: { label: string; value: number; min: number; max: number; unit?: string; testid: string; onCommit: (n: number) => void }) {
  const [draft, setDraft] = useState(String(props.value))
  useEffect(() => setDraft(String(props.value)), [props.value])
  const commit = () => {
    const n = Number(draft.trim())
    if (draft.trim() !== '' && Number.isFinite(n) && n >= props.min && n <= props.max) {
      if (n !== props.value) props.onCommit(Math.round(n))
    } else {
      setDraft(String(props.value))
    }
  }
  return (
    <label className="number-field">
      <span>{props.label}</span>
      <input
        data-testid={props.testid}
        inputMode="numeric"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
        aria-describedby={`${props.testid}-range`}
      />
      {props.unit && <span>{props.unit}</span>}
      <span id={`${props.testid}-range`} className="visually-hidden">
        {props.min} to {props.max}
      </span>
    </label>
  )
}

export function WorkloadPanel({ workload: w, cache, seed, topology, busyRates, onChange, onModel, onClose }: WorkloadPanelProps) {
  const llcs = [...new Set(topology.cpus.map((c) => c.llc))].sort((a, b) => a - b)
  const perL3 = onePerL3(topology)
  const cpuOption = (cpu: number) => `CPU ${cpu} · L3 #${topology.cpus[cpu]?.llc ?? '?'}`
  const add = addThread(w, topology)
  const remove = removeThread(w)
  return (
    <section className="panel workload-panel" aria-label="Workload" data-testid="workload-panel">
      <div className="workload-head">
        <h2>Workload and model: seed 000's intermittent benchmark</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="hint">
        Threads take turns, never two at once: each sweeps (reads and writes) the 16 KiB area its rseq <code>mm_cid</code> selects, then
        sleeps. librseq's pacing ("fixed"): one random order, each thread {`threads × delay`} apart, warm-up sweeps before the first
        measured burst.
      </p>
      <div className="workload-presets" role="group" aria-label="Benchmark configurations">
        <button type="button" data-testid="preset-8core" onClick={() => onChange(BENCHMARK_WORKLOAD)}>
          8 threads on CPUs 0-7 (seed 000: 8-core/1-L3)
        </button>
        <button type="button" data-testid="preset-per-l3" onClick={() => onChange(perL3)}>
          1 thread per L3 ({perL3.threads} threads, seed 000: {perL3.threads}-core/{perL3.threads}-L3)
        </button>
      </div>
      <div className="workload-fields">
        <span className="threads-field" role="group" aria-label="Threads">
          <span>Threads</span>
          <button type="button" data-testid="remove-thread" disabled={!remove} onClick={() => remove && onChange(remove)} aria-label="Remove the last thread">
            −
          </button>
          <strong data-testid="thread-count">{w.threads}</strong>
          <button type="button" data-testid="add-thread" disabled={!add} onClick={() => add && onChange(add)} aria-label="Add a thread">
            +
          </button>
        </span>
        <label>
          <span>Affinity</span>
          <select
            data-testid="placement-select"
            value={w.placement.kind === 'l3' ? `l3:${w.placement.llc}` : w.placement.kind}
            onChange={(e) => {
              const v = e.target.value
              if (v.startsWith('l3:')) onChange(setPlacementKind(w, 'l3', topology, Number(v.slice(3))))
              else onChange(setPlacementKind(w, v as 'pinned' | 'any', topology))
            }}
          >
            <option value="pinned">each thread pinned to one CPU</option>
            <option value="any">every thread: any CPU</option>
            {llcs.map((l) => (
              <option key={l} value={`l3:${l}`}>
                every thread: any CPU in L3 #{l}
              </option>
            ))}
          </select>
        </label>
        <NumberField label="Delay" unit="ms" testid="delay-input" value={w.delayMs} min={LIMITS.delayMs.min} max={LIMITS.delayMs.max} onCommit={(n) => onChange({ ...w, delayMs: n })} />
        <NumberField label="Warm-up sweeps" testid="warmup-input" value={w.warmup} min={LIMITS.warmup.min} max={LIMITS.warmup.max} onCommit={(n) => onChange({ ...w, warmup: n })} />
        <NumberField label="Measured bursts per thread" testid="loops-input" value={w.loops} min={LIMITS.loops.min} max={LIMITS.loops.max} onCommit={(n) => onChange({ ...w, loops: n })} />
        <label>
          <span>Pacing</span>
          <select data-testid="order-select" value={w.order} onChange={(e) => onChange({ ...w, order: e.target.value as ThreadOrder })}>
            <option value="fixed">fixed order (librseq)</option>
            <option value="reshuffle">new random order each round</option>
          </select>
        </label>
      </div>
      {w.placement.kind === 'pinned' && (
        <ol className="thread-pins" aria-label="Each thread's CPU">
          {w.placement.cpus.map((cpu, i) => (
            <li key={i}>
              <label>
                <span>thread {i + 1}</span>
                <select data-testid={`pin-${i}`} value={cpu} onChange={(e) => onChange(pinThread(w, i, Number(e.target.value)))}>
                  {topology.cpus.map((c) => (
                    <option key={c.cpu} value={c.cpu}>
                      {cpuOption(c.cpu)}
                    </option>
                  ))}
                </select>
              </label>
            </li>
          ))}
        </ol>
      )}
      <div className="workload-fields model-fields">
        <label>
          <span>Cache</span>
          <select data-testid="cache-select" value={cache} onChange={(e) => onModel({ cache: e.target.value as CacheMode })}>
            {CACHE_MODES.map((c) => (
              <option key={c} value={c}>
                {CACHE_TEXT[c]}
              </option>
            ))}
          </select>
        </label>
        <NumberField label="Seed" testid="seed-input" value={seed} min={0} max={Number.MAX_SAFE_INTEGER} onCommit={(n) => onModel({ seed: n })} />
      </div>
      <p className="hint">
        Cache "idle": no background traffic, so an area stays in a cache until another core takes it — seed 000's machine runs
        nothing else (its per-cpu figure, 1374 ns per 16 KiB burst, means the data stays in L2 between bursts 1.6 s apart).
        "busy": kscope's default{busyRates ? ` (${busyRates.privateBackgroundBytesPerUs} B/µs per core, ${busyRates.llcBackgroundBytesPerUs} B/µs per L3)` : ''}: every area goes cold within milliseconds, and both kernels then pay DRAM for every burst.
      </p>
      <p className="hint">
        The workload schema gives all threads of a process one kind of affinity: pinned one per CPU, or one shared set (any CPU, or one
        L3). Choosing a CPU another thread has swaps the two.
      </p>
    </section>
  )
}
