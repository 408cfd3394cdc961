/*
 * The cpupri model's records as the views read them (views do not import the engine):
 * the bridge's view and the decoder's formats, re-exported, and the RT placement record
 * the lesson store scans.
 */
import type { ModelRecord } from '../types'

export type { CpupriView, CpupriLinePlace } from '../../engine/cpupri/cpupri_bridge'
export type { CpupriC2cRow, CpupriSummary } from '../../engine/cpupri/cpupri_records'
export { levelLabel } from '../../engine/cpupri/cpupri_records'

/** An RT thread placed on a CPU: woken there (select_task_rq_rt) or pushed/pulled there. */
export interface CpupriRecord extends ModelRecord {
  path: 'WAKEUP' | 'MIGRATE'
  comm: string
  /** Kernel prio (0..98: RT). */
  prio: number
  /** The CPU it was placed on. */
  cpu: number
  /** MIGRATE: the CPU it left; WAKEUP: the CPU that woke it. */
  from_cpu: number
}
