/*
 * The engine's registry of per-model bridges: one line per model in each
 * list. A model's bridge (engine/<model>_bridge.ts) adds its methods to every
 * Simulation (read through the SimInternals handle) and to the loaded core;
 * a run without that model answers them with KscopeError (NOT_FOUND).
 */
import { attachCpupri, bindCpupriCore, type CpupriCore, type CpupriSimulation } from './cpupri/cpupri_bridge'
import { attachMmCid, bindMmCidCore, type MmCidCore, type MmCidSimulation } from './mm_cid/mm_cid_bridge'
import type { SimInternals } from './simulation'
import type { WasmContext } from './wasm_context'

/** What the models add to a Simulation. */
export type ModelSimulationMethods =
  & MmCidSimulation
  & CpupriSimulation

/** What the models add to a loaded core. */
export type ModelCoreMethods =
  & MmCidCore
  & CpupriCore

export function attachModels(s: SimInternals): ModelSimulationMethods {
  return {
    ...attachMmCid(s),
    ...attachCpupri(s),
  }
}

export function bindModelCores(ctx: WasmContext): ModelCoreMethods {
  return {
    ...bindMmCidCore(ctx),
    ...bindCpupriCore(),
  }
}
