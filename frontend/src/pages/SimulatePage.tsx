/*
 * The Simulate page: a modelled run of a workload on a machine, event by event.
 *
 *   header    kscope · Topology | Simulate · MODELLED badge
 *   toolbar   machine, workload, seed, editor │ back, play, step, speed, run to next
 *   main      machine view (+ task table)     │ narration, event log, legend
 *
 * State and the engine live in core/ (useSimulation); the views get data and
 * callbacks. Keyboard first: Space play/pause, → step, ← back, N run to next
 * (ignored while typing in a field).
 */
import { useMemo, useState } from 'react'
import { llcIds, useSimulation } from '../core/sim/sim_controller'
import { openLlcSet } from '../core/sim/sim_state'
import { formatT } from '../core/shared/units'
import { CUSTOM_WORKLOAD, EXAMPLE_WORKLOADS, exampleWorkload } from '../core/sim/workloads'
import { MachineView } from '../views/machine'
import { RunControls, SimPlayback } from '../views/machine/Controls'
import { EventLog } from '../views/machine/EventLog'
import { MachineLegend } from '../views/machine/Legend'
import { Narration } from '../views/machine/Narration'
import { TaskTable } from '../views/machine/TaskTable'
import { WorkloadEditor } from '../views/machine/WorkloadEditor'
import { frameDigest, processColours } from '../views/machine/summary'
import { usePlaybackKeys } from '../views/playback/keys'
import { AppHeader } from './AppHeader'
import { ErrorPanel } from './ErrorPanel'

export function SimulatePage({ navigate }: { navigate: (href: string) => void }) {
  const { state, view, actions, presets, core, coreVersion } = useSimulation()
  const [editorOpen, setEditorOpen] = useState(false)
  const { topology, frame } = view

  usePlaybackKeys(actions)

  const openLlcs = useMemo(
    () => (topology ? openLlcSet(state, topology.cpus.length, llcIds(topology)) : new Set<number>()),
    [state, topology],
  )
  const colours = useMemo(() => processColours(frame?.tasks ?? []), [frame])
  const workloadJson = state.workload === CUSTOM_WORKLOAD ? state.customJson ?? '' : exampleWorkload(state.workload)?.json ?? ''
  const problem = view.problem
  const showEditor = editorOpen || (problem?.kind === 'workload' && state.workload === CUSTOM_WORKLOAD)
  const ready = core === 'ready' && !!frame

  return (
    <>
      <AppHeader page="simulate" preset={state.preset} navigate={navigate} compact>
        <p className="modelled" data-testid="modelled" title={coreVersion ? `kscope core ${coreVersion}` : undefined}>
          <strong>MODELLED</strong> — kscope's scheduler model (C core, wasm), not measured on hardware
        </p>
      </AppHeader>

      <div className="sim-toolbar">
        <RunControls
          state={state}
          presets={presets}
          workloads={EXAMPLE_WORKLOADS}
          disabled={core !== 'ready'}
          editorOpen={showEditor}
          onRun={actions.newRun}
          onToggleEditor={() => setEditorOpen(!showEditor)}
        />
        <SimPlayback state={state} disabled={!ready} actions={actions} />
      </div>

      {core === 'loading' && (
        <p className="status" role="status" data-testid="loading">
          Loading the C core (WebAssembly)…
        </p>
      )}

      <main className="sim-main">
        <div className="sim-left">
          {showEditor && (
            <WorkloadEditor
              key={`${state.workload}:${state.preset}`}
              initial={workloadJson}
              check={actions.checkWorkload}
              onRun={(json) => {
                actions.newRun({ workload: CUSTOM_WORKLOAD, customJson: json })
                setEditorOpen(false)
              }}
              onClose={() => setEditorOpen(false)}
            />
          )}
          {problem && (
            <ErrorPanel title={problemTitle(problem.kind, state.workload)} message={problem.message}>
              {problem.kind === 'workload' && state.workload !== CUSTOM_WORKLOAD && (
                <p className="hint">The example does not validate on this machine: pick another machine or workload.</p>
              )}
            </ErrorPanel>
          )}
          {topology && frame && !showEditor && (
            <>
              <figure className="machine-figure" aria-label="The modelled machine">
                <figcaption className="machine-caption">
                  <span>
                    <strong>{topology.name}</strong> · {frame.cpus.length} CPUs · {formatT(frame.now_ns)} simulated
                    <KernelModel algo={view.algo} />
                  </span>
                  {llcIds(topology).length > 1 && (
                    <span className="llc-buttons">
                      <button type="button" onClick={() => actions.setAllLlcs(true)} data-testid="open-all">
                        Open all L3
                      </button>
                      <button type="button" onClick={() => actions.setAllLlcs(false)} data-testid="close-all">
                        Close all L3
                      </button>
                    </span>
                  )}
                </figcaption>
                <MachineView
                  topology={topology}
                  frame={frame}
                  previous={view.previous}
                  moveMs={view.moveMs}
                  openLlcs={openLlcs}
                  onToggleLlc={actions.toggleLlc}
                />
                <MachineLegend />
              </figure>
              <TaskTable tasks={frame.tasks} colours={colours} />
            </>
          )}
        </div>
        <aside className="sim-side">
          {topology && frame && (
            <>
              <Narration frame={frame} events={view.events} topology={topology} finished={state.finished} notice={view.notice} />
              <EventLog events={view.events} />
              <p className="visually-hidden" data-testid="frame-digest" aria-hidden="true">
                {frameDigest(frame)}
              </p>
            </>
          )}
        </aside>
      </main>
    </>
  )
}

function problemTitle(kind: string, workload: string): string {
  switch (kind) {
    case 'workload':
      return workload === CUSTOM_WORKLOAD ? 'The custom workload does not validate' : `Workload "${workload}" does not validate`
    case 'unknown-workload':
      return 'Unknown workload'
    case 'preset':
      return 'Unknown machine'
    default:
      return 'The C core (WebAssembly) failed'
  }
}

/**
 * Which kernel the run models, and so what rseq_update's mm_cid means: the 6.18 mm_cid
 * allocator where the workload registers rseq (each rseq_update carries the thread's cid),
 * or no cid at all where no process does (sim_controller.ts SIM_ALGO).
 */
function KernelModel({ algo }: { algo: string | null }) {
  if (!algo) return null
  const m = /^mm_cid:(v[\d.]+)/.exec(algo)
  return (
    // One short clause in the caption (the picture below needs the height at 1280x720); the
    // reason in full on hover and for screen readers.
    <span className="kernel-model" data-testid="kernel-model" data-algo={algo}
      title={m
        ? "The workload's threads register rseq: each rseq_update carries the thread's mm_cid, from this kernel version's allocator model"
        : 'No process of this workload registers rseq, so no rseq_update reports a cid (mm_cid=-1)'}>
      {' · '}
      {m ? <>kernel model: Linux {m[1].slice(1)} mm_cid allocator</> : <>kernel model: no mm_cid (no thread registers rseq)</>}
    </span>
  )
}
