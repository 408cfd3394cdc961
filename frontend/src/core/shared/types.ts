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
// A run scanned ahead (Simulation.timeline). It is declared in the model's bridge until the
// core's generic model view lands (issue 14); each model's own record types: models/<id>/types.ts.
export type {
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
