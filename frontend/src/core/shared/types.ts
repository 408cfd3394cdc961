// The data types the app works with. They are defined by the engine (which
// copies them out of the C core) and re-exported here, so views depend on core
// only: engine <- core <- views (scripts/check-imports.mjs).
export type {
  BurstCost,
  CacheParams,
  MmCidArea,
  MmCidMm,
  MmCidPath,
  MmCidPcpu,
  MmCidRecord,
  MmCidVariant,
  MmCidView,
  RunTimeline,
  CpuInfo,
  EventType,
  KscopeCore,
  Policy,
  PresetInfo,
  SimCpu,
  SimEvent,
  SimFrame,
  SimTask,
  TaskState,
  Topology,
  TopologySummary,
} from '../../engine/wasm_bridge'
export { EVENT_TYPES, MM_CID_F_OVER_ALLOWED, MM_CID_F_TASK_ALLOWED, MM_CID_F_WAITED, MM_CID_PATHS } from '../../engine/wasm_bridge'
