/*
 * The landing page ("/"): what kscope is and where to start (Landing.tsx), then
 * the topology: header with the machine picker, the summary the C core
 * computed, the topology drawing and a side panel (CPU details + legend).
 * State lives in core/ (useAppStore); views get data and callbacks as props.
 */
import { useMemo } from 'react'
import { plural } from '../core/shared/cpulist'
import { topologyFor, useKscopeCore } from '../core/machine/machine'
import { useAppStore } from '../core/machine/store'
import type { PresetInfo, TopologySummary } from '../core/shared/types'
import { TopologyView } from '../views/topology'
import { CpuPanel } from '../views/topology/CpuPanel'
import { Legend } from '../views/topology/Legend'
import { AppHeader } from './AppHeader'
import { ErrorPanel } from './ErrorPanel'
import { LandingIntro } from './Landing'

export function TopologyPage({ navigate }: { navigate: (href: string) => void }) {
  const core = useKscopeCore()
  const { state, actions } = useAppStore()
  const result = useMemo(
    () => (core.status === 'ready' ? topologyFor(core.core, state.preset) : null),
    [core, state.preset],
  )
  const presets = core.status === 'ready' ? core.presets : []

  return (
    <>
      <AppHeader page="topology" preset={state.preset} navigate={navigate} compact>
        <PresetPicker presets={presets} value={state.preset} onSelect={actions.selectPreset} disabled={core.status !== 'ready'} />
      </AppHeader>
      <LandingIntro navigate={navigate} />

      {core.status === 'loading' && (
        <p className="status" role="status" data-testid="loading">
          Loading the C core (WebAssembly)…
        </p>
      )}
      {core.status === 'error' && (
        <ErrorPanel title="The C core (WebAssembly) failed to load" message={core.message} />
      )}
      {result?.error && (
        <ErrorPanel
          title={`No machine called "${state.preset}"`}
          message={`${result.error}. Pick a machine from the list above.`}
        />
      )}

      {result?.topology && (
        <>
          <p className="summary" data-testid="summary">
            <Summary summary={result.topology.summary} />
            <span className="provenance" title={core.status === 'ready' ? `kscope core ${core.version}` : undefined}>
              {' '}— computed by the C core (wasm)
            </span>
          </p>
          <main className="workspace">
            <figure className="topology-figure" aria-label="Machine topology">
              <TopologyView topology={result.topology} focusedCpu={state.focusedCpu} onFocusCpu={actions.focusCpu} />
            </figure>
            <aside className="side">
              <CpuPanel topology={result.topology} cpu={state.focusedCpu} />
              <Legend />
            </aside>
          </main>
        </>
      )}
    </>
  )
}

function PresetPicker(props: { presets: PresetInfo[]; value: string; onSelect: (name: string) => void; disabled: boolean }) {
  const known = props.presets.some((p) => p.name === props.value)
  const current = props.presets.find((p) => p.name === props.value)
  return (
    <label className="preset-picker">
      <span>Machine</span>
      <select
        data-testid="preset-select"
        value={known || props.disabled ? props.value : ''}
        onChange={(e) => props.onSelect(e.target.value)}
        disabled={props.disabled}
        title={current?.description}
      >
        {props.disabled && <option value={props.value}>{props.value}</option>}
        {!known && !props.disabled && (
          <option value="" disabled>
            Choose a machine…
          </option>
        )}
        {props.presets.map((p) => (
          <option key={p.name} value={p.name}>
            {p.name} — {p.description}
          </option>
        ))}
      </select>
    </label>
  )
}

function Summary({ summary: s }: { summary: TopologySummary }) {
  const parts = [
    plural(s.cpus, 'CPU'),
    plural(s.cores, 'core'),
    `${s.llcs} L3`,
    plural(s.nodes, 'NUMA node'),
    plural(s.sockets, 'socket'),
  ]
  return <span>{parts.join(' · ')}</span>
}
