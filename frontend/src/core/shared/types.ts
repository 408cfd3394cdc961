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
// RunTimeline: a run scanned ahead (a model bridge's timeline()), generic over the model's
// log record; each model's own record types: models/<id>/types.ts.
export type {
  CacheParams,
  RunTimeline,
} from '../../engine/simulation'
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
