/*
 * Events in plain words, for the narration panel and the event log:
 *
 *   t=12.345 ms: sched_switch on CPU 3: worker-2 (pid 105) sleeps, idle runs
 *
 * Pure text from an event record (and the topology, to say how far a task
 * moved). Task names are user data (a custom workload's "comm"): views render
 * these strings as text, never as HTML.
 */
import { formatT } from '../shared/units'
import type { SimEvent, Topology } from '../shared/types'

/** "hackbench (pid 1003)", or "idle" for pid 0 (the per-CPU swapper task). */
export function taskText(comm: string, pid: number): string {
  return pid === 0 ? 'idle' : `${comm} (pid ${pid})`
}

/** Short form for the log: "hackbench/1003", "idle". */
export function taskShort(comm: string, pid: number): string {
  return pid === 0 ? 'idle' : `${comm}/${pid}`
}

/** What sched_switch's prev_state says happened to the task leaving the CPU. */
export function leaving(prevState: number): string {
  if (prevState === 0) return 'is preempted (still runnable)'
  if (prevState & 0x20 || prevState & 0x10) return 'exits'
  if (prevState & 0x1) return 'sleeps'
  if (prevState & 0x2) return 'blocks (uninterruptible)'
  return `stops (state 0x${prevState.toString(16)})`
}

/** One-letter state as ftrace prints prev_state: R, S, D, Z, ... */
export function stateLetter(prevState: number): string {
  if (prevState === 0) return 'R'
  if (prevState & 0x20) return 'Z'
  if (prevState & 0x10) return 'X'
  if (prevState & 0x1) return 'S'
  if (prevState & 0x2) return 'D'
  return '?'
}

/** How far apart two CPUs are in the cache hierarchy, in words. */
export function distance(topology: Topology | undefined, from: number, to: number): string {
  const a = topology?.cpus[from]
  const b = topology?.cpus[to]
  if (!a || !b) return ''
  if (a.core === b.core) return 'its SMT sibling'
  if (a.llc === b.llc) return `the same L3 (#${a.llc})`
  if (a.node === b.node) return `another L3 (#${a.llc} → #${b.llc}), same NUMA node`
  if (a.socket === b.socket) return `another NUMA node (${a.node} → ${b.node})`
  return `another socket (${a.socket} → ${b.socket})`
}

/** What happened, without the time and place prefix. */
export function describeEvent(ev: SimEvent, topology?: Topology): string {
  switch (ev.type) {
    case 'sched_switch': {
      const prev = ev.prev_pid === 0 ? 'idle stops' : `${taskText(ev.prev_comm, ev.prev_pid)} ${leaving(ev.prev_state)}`
      return `${prev}, ${taskText(ev.next_comm, ev.next_pid)} runs`
    }
    case 'sched_waking': {
      const by = ev.pid === 0 ? 'a timer' : taskText(ev.comm, ev.pid)
      return `${by} wakes ${taskText(ev.target_comm, ev.target_pid)}`
    }
    case 'sched_wakeup':
      return `${taskText(ev.target_comm, ev.target_pid)} is runnable, queued on CPU ${ev.target_cpu}`
    case 'sched_wakeup_new':
      return `new task ${taskText(ev.target_comm, ev.target_pid)} is placed on CPU ${ev.target_cpu}`
    case 'sched_migrate_task': {
      const far = distance(topology, ev.orig_cpu, ev.dest_cpu)
      return `${taskText(ev.target_comm, ev.target_pid)} moves from CPU ${ev.orig_cpu} to CPU ${ev.dest_cpu}${far ? ` (${far})` : ''}`
    }
    case 'sched_process_fork':
      return `${taskText(ev.parent_comm, ev.parent_pid)} forks ${taskText(ev.child_comm, ev.child_pid)}`
    case 'sched_process_exit':
      return `${taskText(ev.target_comm, ev.target_pid)} exits`
    case 'sched_process_free':
      return `${taskText(ev.target_comm, ev.target_pid)} is reaped (its task struct freed)`
    case 'rseq_update': {
      // The tracepoint's fields as the kernel prints them; mm_cid=-1: no cid in the rseq area.
      const cid = `mm_cid=${ev.mm_cid}${ev.mm_cid < 0 ? ' (none)' : ''}`
      return `${taskText(ev.comm, ev.pid)} sees cpu_id ${ev.cpu_id}, node ${ev.node_id}, ${cid} in its rseq area`
    }
    case 'kmem_cache_alloc':
      return `${taskText(ev.comm, ev.pid)} allocates a ${ev.bytes_alloc}-byte object from ${ev.cache}` +
        `${ev.node >= 0 ? ` on node ${ev.node}` : ''}`
    case 'kmem_cache_free':
      return `${taskText(ev.comm, ev.pid)} frees an object to ${ev.cache}`
    case 'sheaf_refill':
      return `${ev.cache}'s sheaf is refilled with ${ev.objects} objects (${ev.size}/${ev.capacity})`
    case 'sheaf_flush':
      return `${ev.cache}'s sheaf is flushed: ${ev.objects} objects go back (${ev.size}/${ev.capacity} left)`
    case 'barn_get':
      return `${ev.cache} takes ${ev.full ? 'a full' : 'an empty'} sheaf from node ${ev.node}'s barn ` +
        `(barn: ${ev.barn_full} full, ${ev.barn_empty} empty)`
    case 'barn_put':
      return `${ev.cache} puts ${ev.full ? 'a full' : 'an empty'} sheaf into node ${ev.node}'s barn ` +
        `(barn: ${ev.barn_full} full, ${ev.barn_empty} empty)`
    case 'generic':
      return 'an event the model keeps as text'
  }
}

/** The narration sentence: "t=12.345 ms: sched_switch on CPU 3: worker-2 (pid 105) sleeps, idle runs". */
export function narrate(ev: SimEvent, topology?: Topology): string {
  return `${formatT(ev.ts_ns)}: ${ev.type} on CPU ${ev.cpu}: ${describeEvent(ev, topology)}`
}

/** The event log's compact line (after time, CPU and type columns): "hackbench/1003 S → idle". */
export function eventDetail(ev: SimEvent): string {
  switch (ev.type) {
    case 'sched_switch':
      return `${taskShort(ev.prev_comm, ev.prev_pid)} ${stateLetter(ev.prev_state)} → ${taskShort(ev.next_comm, ev.next_pid)}`
    case 'sched_waking':
    case 'sched_wakeup':
    case 'sched_wakeup_new':
      return `${taskShort(ev.target_comm, ev.target_pid)} → CPU\u00a0${ev.target_cpu}`
    case 'sched_migrate_task':
      return `${taskShort(ev.target_comm, ev.target_pid)} CPU\u00a0${ev.orig_cpu} → ${ev.dest_cpu}`
    case 'sched_process_fork':
      return `${taskShort(ev.parent_comm, ev.parent_pid)} → ${taskShort(ev.child_comm, ev.child_pid)}`
    case 'sched_process_exit':
    case 'sched_process_free':
      return taskShort(ev.target_comm, ev.target_pid)
    case 'rseq_update':
      return `${taskShort(ev.comm, ev.pid)} cpu_id=${ev.cpu_id} mm_cid=${ev.mm_cid}`
    case 'kmem_cache_alloc':
      return `${ev.cache} ${ev.bytes_alloc}\u00a0B`
    case 'kmem_cache_free':
      return ev.cache
    case 'sheaf_refill':
    case 'sheaf_flush':
      return `${ev.cache} ${ev.size}/${ev.capacity}`
    case 'barn_get':
    case 'barn_put':
      return `${ev.cache} ${ev.full ? 'full' : 'empty'} (node\u00a0${ev.node})`
    case 'generic':
      return ''
  }
}
