/*
 * The mm_cid model's lesson page (/lesson/mm_cid, pages/LessonPage.tsx finds it in
 * the registry): why commit 7e019dc ("sched: Improve cache locality of
 * RSEQ concurrency IDs for intermittent workloads", v6.13) helps, shown on a
 * modelled run of seed 000's benchmark, step by step, before and after.
 *
 *   header    kscope · Topology | Simulate | mm_cid lesson · MODELLED
 *   intro     what a cid is, what goes wrong, what 7e019dc changes
 *   toolbar   kernel / machine / workload / cache / seed │ back, play, step, next allocation
 *   main      picture(s): CPUs by L3 + cidmask + data areas │ narration, costs, numbers, table
 *             chart: ns per burst over time
 *
 * State and the engine live in core/ (useLesson); the views get data and
 * callbacks. Keyboard first: Space play/pause, → step, ← back, N next
 * allocation (ignored while typing in a field).
 */
import { useMemo, useState } from 'react'
import { useLesson } from '../../core/lesson/lesson_controller'
import { lessonDurationMs, variantsOf } from '../../core/lesson/lesson_state'
import { LessonPlayback, LessonRunControls } from '../../views/mm_cid/Controls'
import { CostChart } from '../../views/mm_cid/CostChart'
import { LessonPicture } from '../../views/mm_cid/LessonPicture'
import { VARIANT_LOOK } from '../../views/mm_cid/marks'
import { CostSummary, LessonNarration, MmNumbers, PcpuTable } from '../../views/mm_cid/Panels'
import { lessonDigest, pictureExtent } from '../../views/mm_cid/picture'
import { TransferCaption } from '../../views/mm_cid/TransferCaption'
import { PictureLegend } from '../../views/mm_cid/PictureLegend'
import { WorkloadPanel } from '../../views/mm_cid/WorkloadPanel'
import { usePlaybackKeys } from '../../views/playback/keys'
import { appHref } from '../../core/shared/route'
import { AppHeader } from '../../pages/AppHeader'
import { ErrorPanel } from '../../pages/ErrorPanel'
import '../../pages/lesson_page.css'

/** Compare mode puts the two pictures side by side up to this many CPUs, else one above the other. */
const SIDE_BY_SIDE_CPUS = 12

export function MmCidLessonPage({ navigate }: { navigate: (href: string) => void }) {
  const { state, view, actions, presets, core, coreVersion, paths, cacheDefaults } = useLesson()
  const [editorOpen, setEditorOpen] = useState(false)
  const { topology, runs } = view

  usePlaybackKeys(actions)

  // What to draw: the CPUs the threads may use (or those that held a cid), and enough cid cells.
  const { cpus, cells } = useMemo(
    () => (topology ? pictureExtent(topology, state.workload.placement, state.workload.threads, runs) : { cpus: [], cells: 8 }),
    [topology, state.workload.placement, state.workload.threads, runs],
  )
  const ready = core === 'ready' && runs.length > 0
  const compare = runs.length > 1
  const endMs = lessonDurationMs(state.workload)

  return (
    <>
      <AppHeader page="lesson" preset={state.preset} navigate={navigate} compact>
        <p className="modelled" data-testid="modelled" title={coreVersion ? `kscope core ${coreVersion}: kscope's model of the kernel, not measured` : undefined}>
          <strong>MODELLED</strong> <span data-testid="provenance">from 7e019dc; <span className="v612">v6.12 = before</span>, <span className="v613">v6.13 = after</span></span> — not measured
        </p>
      </AppHeader>

      <section className="lesson-intro" aria-label="What this lesson is about" data-testid="lesson-intro">
        <p>
          A <strong>concurrency ID</strong> (<code>mm_cid</code>) is a small per-process number rseq gives each running thread, here
          indexing one 16 KiB data area per cid. Before 7e019dc, a scan takes back cids unused for 100 ms, and a thread whose bursts
          are further apart gets the <em>lowest free</em> cid: often an area another core or L3 wrote last, so the burst misses the
          cache. <strong>7e019dc</strong> (v6.13) first retries the CPU's last cid (<code>recent_cid</code>), so the thread gets its
          own, still-cached area back.{' '}
          <a href={appHref('/learn/mm_cid')} onClick={(e) => { e.preventDefault(); navigate('/learn/mm_cid') }} data-testid="to-learn">Step-by-step lesson</a>
          {' · '}
          <a href={appHref('/present/mm_cid')} data-testid="to-present">Present it</a>
        </p>
      </section>

      <div className="sim-toolbar lesson-toolbar">
        <LessonRunControls
          state={state}
          presets={presets}
          disabled={core !== 'ready'}
          editorOpen={editorOpen}
          onRun={actions.newRun}
          onToggleEditor={() => setEditorOpen(!editorOpen)}
        />
        <LessonPlayback state={state} lastStep={view.lastStep} disabled={!ready} actions={actions} />
      </div>

      {core === 'loading' && (
        <p className="status" role="status" data-testid="loading">
          Loading the C core (WebAssembly)…
        </p>
      )}

      <main className={`lesson-main${compare ? ' compare' : ''}${compare && cpus.length > SIDE_BY_SIDE_CPUS ? ' stacked' : ''}`}>
        <div className="lesson-left">
          {editorOpen && topology && (
            <WorkloadPanel
              workload={state.workload}
              cache={state.cache}
              seed={state.seed}
              topology={topology}
              busyRates={cacheDefaults}
              onChange={(w) => actions.newRun({ workload: w })}
              onModel={(change) => actions.newRun(change)}
              onClose={() => setEditorOpen(false)}
            />
          )}
          {view.problem && (
            <ErrorPanel title={view.problem.kind === 'preset' ? 'Unknown machine' : view.problem.kind === 'workload' ? 'The workload does not fit this machine' : 'The C core (WebAssembly) failed'} message={view.problem.message}>
              {view.problem.kind === 'workload' && <p className="hint">Open the workload to change its threads or CPUs.</p>}
            </ErrorPanel>
          )}
          {topology && ready && (
            <>
              <div className="pictures">
                {runs.map((r, i) => (
                  <figure key={r.variant} className="picture-figure" style={{ borderTopColor: VARIANT_LOOK[r.variant].colour }}>
                    <figcaption>
                      <strong>{VARIANT_LOOK[r.variant].name}</strong>
                      {state.toggles.length > 0 && r.variant !== 'v6.12' && (
                        <span className="lp-toggled"> · with {state.toggles.map((t) => `−${t}`).join(', ')} (bug injected)</span>
                      )}
                      {!r.view.mm && <span className="hint-inline"> · process not running (no live threads)</span>}
                      <TransferCaption run={r} topology={topology} />
                    </figcaption>
                    <LessonPicture
                      run={r}
                      other={compare ? runs[1 - i] : undefined}
                      topology={topology}
                      cpus={cpus}
                      cells={cells}
                      moveMs={view.moveMs}
                      title={`${r.variant} on ${topology.name}`}
                    />
                  </figure>
                ))}
              </div>
              <PictureLegend compare={compare} has613={runs.some((r) => r.variant !== 'v6.12')} />
              <CostChart runs={runs} timeNs={view.time_ns} endMs={endMs} />
            </>
          )}
        </div>
        <aside className="lesson-side">
          {ready && (
            <>
              <LessonNarration
                runs={runs}
                step={state.step}
                lastStep={view.lastStep}
                timeNs={view.time_ns}
                finished={state.finished}
                notice={view.notice}
                paths={paths}
              />
              <CostSummary runs={runs} />
              <MmNumbers runs={runs} timeNs={view.time_ns} />
              {topology && <PcpuTable runs={runs} cpus={cpus} topology={topology} timeNs={view.time_ns} />}
              <p className="visually-hidden" data-testid="lesson-digest" aria-hidden="true">
                {lessonDigest(state.step, view.time_ns, runs)}
              </p>
              <p className="visually-hidden" data-testid="lesson-variants" aria-hidden="true">
                {variantsOf(state.variant).join(',')}
              </p>
            </>
          )}
        </aside>
      </main>
    </>
  )
}
