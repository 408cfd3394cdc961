// The data types the app works with. They are defined by the engine (which
// copies them out of the C core) and re-exported here, so views depend on core
// only: engine <- core <- views (scripts/check-imports.mjs).
export type {
  BurstCost,
  EventType,
  Policy,
  SimCpu,
  SimEvent,
  SimFrame,
  SimTask,
  TaskState,
} from '../../engine/sim_records'
export type {
  CacheParams,
} from '../../engine/simulation'
export type {
  MmCidArea,
  MmCidMm,
  MmCidPath,
  MmCidPcpu,
  MmCidRecord,
  MmCidVariant,
} from '../../engine/mm_cid/mm_cid_records'
export type {
  MmCidView,
  RunTimeline,
} from '../../engine/mm_cid/mm_cid_bridge'
export type {
  CpuInfo,
  PresetInfo,
  Topology,
  TopologySummary,
} from '../../engine/topology'
export type {
  KscopeCore,
} from '../../engine/wasm_bridge'
export { EVENT_TYPES } from '../../engine/sim_records'
export { MM_CID_F_OVER_ALLOWED, MM_CID_F_TASK_ALLOWED, MM_CID_F_WAITED, MM_CID_PATHS } from '../../engine/mm_cid/mm_cid_records'
