// The data types the app works with. They are defined by the engine (which
// copies them out of the C core) and re-exported here, so views depend on core
// only: engine <- core <- views (scripts/check-imports.mjs).
export type {
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
} from '../engine/wasm_bridge'
export { EVENT_TYPES } from '../engine/wasm_bridge'
