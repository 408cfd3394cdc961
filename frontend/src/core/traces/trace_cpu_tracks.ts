/*
 * More than scheduling: per-CPU slice and counter tracks from events the
 * decoders keep generically (name + field text; MEASURED):
 *
 *   irq_handler_entry: irq=36 name=virtio1-req.0  … irq_handler_exit: irq=36 ret=handled
 *        -> a hardirq span "irq 36 virtio1-req.0" on the event's CPU
 *   softirq_entry: vec=9 [action=RCU]              … softirq_exit: vec=9 [action=RCU]
 *        -> a softirq span "softirq RCU"
 *   cpu_idle: state=1 cpu_id=0  … cpu_idle: state=4294967295 cpu_id=0 (PWR_EVENT_EXIT)
 *        -> an idle-state span "C1" on cpu_id
 *   cpu_frequency: state=2400000 cpu_id=3
 *        -> a counter per cpu_id (kHz, as the kernel writes it)
 *   sched_stat_*: counted (the timeline's event ticks show each one)
 *
 * An entry without its exit (the capture stopped, or lost it) ends at the
 * events' end and is marked open; an exit without an entry (the capture began
 * inside the handler) is dropped and counted. Pure; computed once per store.
 */
import { TYPE_GENERIC, type TraceStore } from './trace_store'

export const SPAN_IRQ = 0
export const SPAN_SOFTIRQ = 1
export const SPAN_IDLE = 2

export interface CpuSpans {
  start: number[]
  end: number[]
  kind: number[]
  label: string[]
  /** 1: no exit seen (ends where the events end). */
  open: number[]
}

export interface CpuCounter {
  ts: number[]
  value: number[]
}

export interface CpuTracks {
  spans: Map<number, CpuSpans>
  freq: Map<number, CpuCounter>
  counts: { irq: number; softirq: number; idle: number; freq: number; stat: number; unmatchedExits: number }
}

const IDLE_EXIT = 4294967295
const cache = new WeakMap<TraceStore, CpuTracks>()

/** key=value pairs of a generic event's field text ("irq=36 name=virtio1-req.0", "vec=9 [action=RCU]"). */
export function fieldMap(text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const m of text.matchAll(/\[?(\w+)=([^\s\]]*)\]?/g)) out.set(m[1], m[2])
  return out
}

export function cpuTracks(s: TraceStore): CpuTracks {
  const hit = cache.get(s)
  if (hit) return hit
  const c = s.columns
  const spans = new Map<number, CpuSpans>()
  const freq = new Map<number, CpuCounter>()
  const counts = { irq: 0, softirq: 0, idle: 0, freq: 0, stat: 0, unmatchedExits: 0 }
  const openAt = new Map<string, number>() // `${cpu}/${kind}` -> index of its open span
  const spansOf = (cpu: number) => {
    let x = spans.get(cpu)
    if (!x) spans.set(cpu, (x = { start: [], end: [], kind: [], label: [], open: [] }))
    return x
  }
  const begin = (cpu: number, kind: number, t: number, label: string) => {
    const x = spansOf(cpu)
    const key = `${cpu}/${kind}`
    const prev = openAt.get(key)
    if (prev !== undefined) { x.end[prev] = t; x.open[prev] = 0 } // a new entry closes a lost exit's span
    openAt.set(key, x.start.length)
    x.start.push(t); x.end.push(NaN); x.kind.push(kind); x.label.push(label); x.open.push(1)
  }
  const finish = (cpu: number, kind: number, t: number) => {
    const key = `${cpu}/${kind}`
    const k = openAt.get(key)
    if (k === undefined) { counts.unmatchedExits++; return }
    const x = spans.get(cpu)!
    x.end[k] = t
    x.open[k] = 0
    openAt.delete(key)
  }
  // Only the generic rows (a few, or none): never an array the size of the trace.
  const order: number[] = []
  for (let i = 0; i < c.count; i++) if (c.type[i] === TYPE_GENERIC) order.push(i)
  order.sort((a, b) => c.ts[a] - c.ts[b] || a - b)
  for (const i of order) {
    const name = c.strings[c.s1[i]] ?? ''
    if (name.startsWith('sched_stat_')) { counts.stat++; continue }
    if (name !== 'irq_handler_entry' && name !== 'irq_handler_exit' && name !== 'softirq_entry' && name !== 'softirq_exit'
      && name !== 'cpu_idle' && name !== 'cpu_frequency') continue
    const f = fieldMap(c.strings[c.s2[i]] ?? '')
    const t = c.ts[i]
    const cpu = c.cpu[i]
    if (name === 'irq_handler_entry') {
      counts.irq++
      begin(cpu, SPAN_IRQ, t, `irq ${f.get('irq') ?? '?'}${f.get('name') ? ` ${f.get('name')}` : ''}`)
    } else if (name === 'irq_handler_exit') finish(cpu, SPAN_IRQ, t)
    else if (name === 'softirq_entry') {
      counts.softirq++
      begin(cpu, SPAN_SOFTIRQ, t, `softirq ${f.get('action') ?? `vec ${f.get('vec') ?? '?'}`}`)
    } else if (name === 'softirq_exit') finish(cpu, SPAN_SOFTIRQ, t)
    else if (name === 'cpu_idle') {
      const target = Number(f.get('cpu_id') ?? cpu)
      const state = Number(f.get('state'))
      if (state === IDLE_EXIT) finish(target, SPAN_IDLE, t)
      else if (Number.isFinite(state)) {
        counts.idle++
        begin(target, SPAN_IDLE, t, `C${state}`)
      }
    } else {
      const target = Number(f.get('cpu_id') ?? cpu)
      const value = Number(f.get('state'))
      if (!Number.isFinite(value) || !Number.isFinite(target)) continue
      counts.freq++
      let x = freq.get(target)
      if (!x) freq.set(target, (x = { ts: [], value: [] }))
      x.ts.push(t); x.value.push(value)
    }
  }
  const endT = s.loaded ? Math.min(s.loaded.t1, s.lastTs) : s.t1
  for (const x of spans.values()) for (let k = 0; k < x.end.length; k++) if (Number.isNaN(x.end[k])) x.end[k] = Math.max(x.start[k], endT)
  const out = { spans, freq, counts }
  cache.set(s, out)
  return out
}

/** "2.4 GHz" / "800 MHz" from the kernel's kHz. */
export function formatKhz(khz: number): string {
  return khz >= 1e6 ? `${(khz / 1e6).toFixed(2)} GHz` : `${Math.round(khz / 1e3)} MHz`
}
