/*
 * mm_cid's records and view as its engine bridge decodes them (engine/mm_cid/mm_cid_records.ts,
 * engine/mm_cid/mm_cid_bridge.ts). This model's code and views/mm_cid/ read them from here:
 * generic code (core/shared/types.ts) names no model, and views never import the engine.
 */
export type { MmCidArea, MmCidMm, MmCidPath, MmCidPcpu, MmCidRecord, MmCidVariant } from '../../engine/mm_cid/mm_cid_records'
export type { MmCidView } from '../../engine/mm_cid/mm_cid_bridge'
export { MM_CID_F_OVER_ALLOWED, MM_CID_F_TASK_ALLOWED, MM_CID_F_WAITED, MM_CID_PATHS } from '../../engine/mm_cid/mm_cid_records'
