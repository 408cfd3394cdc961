/*
 * The mm_cid model's views on the lesson player's stage (models/mm_cid's
 * descriptor: views.Stage): the picture (CPUs, cidmask, data areas) per
 * kernel, its legend, the published table, the allocator's narration, burst
 * costs, per-process numbers, the per-CPU table and the cost chart. The player
 * (views/lesson/LessonPlayer.tsx) says which views to draw (shows), which are
 * highlighted and which one the presenter focused.
 */
import { useMemo, useState, type ReactNode } from 'react'
import type { LessonSnapshot } from '../../models/mm_cid/lesson_controller'
import { lessonDurationMs } from '../../core/lesson/lesson_state'
import type { LessonStep } from '../../core/lesson/lesson_types'
import type { ModelStageProps } from '../../models/types'
import { CostChart } from './CostChart'
import { CostBreakdownPanel } from '../cost/CostBreakdownPanel'
import { breakdownRows, maxBack } from './breakdown_rows'
import { LessonPicture } from './LessonPicture'
import { VARIANT_LOOK } from './marks'
import { CostSummary, LessonNarration, MmNumbers, PcpuTable } from './Panels'
import { lessonDigest, pictureExtent } from './picture'
import { PictureLegend } from './PictureLegend'
import { PublishedTable } from './PublishedTable'
import { TransferCaption } from './TransferCaption'

/** Human names of the views (embed titles, the highlight marker). */
export const VIEW_NAMES: Record<string, string> = {
  picture: 'CPUs, cidmask and data areas',
  legend: 'legend',
  narration: 'what the allocator did',
  costs: 'burst cost',
  breakdown: 'burst cost by mechanism',
  numbers: 'per-process numbers',
  pcpu: 'per-CPU table',
  chart: 'ns per burst over time',
  published: 'published vs modelled',
}

/** Presenter mode's view tabs: short names, so the tabs take one line above the stage. */
export const TAB_NAMES: Record<string, string> = {
  picture: 'picture',
  legend: 'legend',
  narration: 'allocator',
  costs: 'burst cost',
  breakdown: 'why it cost',
  numbers: 'per process',
  pcpu: 'per CPU',
  chart: 'chart',
  published: 'published',
}

function Part({ id, highlight, children, focused }: { id: string; highlight: boolean; focused: boolean; children: ReactNode }) {
  return (
    <div className={`lp-part lp-part-${id}${highlight ? ' lp-highlight' : ''}${focused ? ' lp-focused' : ''}`} data-view={id} data-highlight={highlight ? 'yes' : undefined}
      data-focused={focused ? 'yes' : undefined}>
      {highlight && <span className="lp-look" aria-hidden="true">◆ look here</span>}
      {focused && <span className="lp-look lp-look-focus" aria-hidden="true">▶ presenter's focus</span>}
      {children}
    </div>
  )
}

export function LessonStage(props: ModelStageProps) {
  const { shows, highlight, focused: focusedView, toggles, paths, mode, stageView, kernelShown } = props
  const snapshot = props.snapshot as LessonSnapshot
  const step = props.step as LessonStep
  const { state, view } = snapshot
  const { topology, runs } = view
  const compare = runs.length > 1
  const oneKernel = stageView === 'picture' && compare
  const extent = useMemo(
    () => (topology ? pictureExtent(topology, state.workload.placement, state.workload.threads, runs) : { cpus: [], cells: 8 }),
    [topology, state.workload.placement, state.workload.threads, runs],
  )
  // The breakdown's browsing: bursts back from the latest (0: the step's own burst), per step.
  const [browse, setBrowse] = useState({ step: state.step, back: 0 })
  const back = browse.step === state.step ? Math.min(browse.back, maxBack(runs)) : 0
  const goBack = (n: number) => setBrowse({ step: state.step, back: Math.max(0, Math.min(n, maxBack(runs))) })
  if (!topology || runs.length === 0) return null
  return (
    <>
      {shows('picture') && (
        <Part id="picture" highlight={highlight('picture') || highlight('cidmask') || highlight('areas') || highlight('cpus')} focused={focusedView === 'picture'}>
          <div className={`pictures${compare ? ' lp-compare' : ''}`}>
            {runs.map((r, i) => (oneKernel && i !== Math.min(kernelShown, runs.length - 1)) ? null : (
              <figure key={r.variant} className="picture-figure" style={{ borderTopColor: VARIANT_LOOK[r.variant].colour }} data-testid={`lp-picture-${r.variant}`}>
                <figcaption>
                  <strong>{VARIANT_LOOK[r.variant].name}</strong>
                  {toggles.length > 0 && r.variant !== 'v6.12' && <span className="lp-toggled"> · with {toggles.map((t) => `−${t}`).join(', ')} (bug injected)</span>}
                  {!r.view.mm && <span className="hint-inline"> · process not running (no live threads)</span>}
                  <TransferCaption run={r} topology={topology} />
                </figcaption>
                <LessonPicture run={r} other={compare ? runs[1 - i] : undefined} topology={topology} cpus={extent.cpus} cells={extent.cells}
                  moveMs={0} title={`${r.variant} on ${topology.name}`} projector={stageView === 'picture'} />
              </figure>
            ))}
          </div>
        </Part>
      )}
      {shows('legend') && (
        <Part id="legend" highlight={highlight('legend')} focused={focusedView === 'legend'}>
          <PictureLegend compare={compare} has613={runs.some((r) => r.variant !== 'v6.12')} />
        </Part>
      )}
      {shows('published') && step.published && (
        <Part id="published" highlight={highlight('published')} focused={focusedView === 'published'}>
          <PublishedTable published={step.published} runs={runs} />
        </Part>
      )}
      <div className="lp-panels">
        {shows('narration') && (
          <Part id="narration" highlight={highlight('narration')} focused={focusedView === 'narration'}>
            <LessonNarration runs={runs} step={state.step} lastStep={view.lastStep} timeNs={view.time_ns} finished={state.finished} notice={null} paths={paths} unit="Model instant"
              maxLines={mode === 'presenter' ? 3 : undefined} />
          </Part>
        )}
        {shows('costs') && (
          <Part id="costs" highlight={highlight('costs')} focused={focusedView === 'costs'}>
            <CostSummary runs={runs} />
          </Part>
        )}
        {shows('breakdown') && view.cost && (
          <Part id="breakdown" highlight={highlight('breakdown')} focused={focusedView === 'breakdown'}>
            <CostBreakdownPanel rows={breakdownRows(runs, back)} model={view.cost.model}
              browse={{
                label: back === 0 ? "this step's burst (or the latest)" : `${back} burst${back > 1 ? 's' : ''} before the latest`,
                earlier: back < maxBack(runs) ? () => goBack(back + 1) : null,
                later: back > 0 ? () => goBack(back - 1) : null,
              }}
              background={{ perCoreBytesPerUs: view.cost.background.privateBackgroundBytesPerUs, perLlcBytesPerUs: view.cost.background.llcBackgroundBytesPerUs }} />
          </Part>
        )}
        {shows('numbers') && (
          <Part id="numbers" highlight={highlight('numbers')} focused={focusedView === 'numbers'}>
            <MmNumbers runs={runs} timeNs={view.time_ns} />
          </Part>
        )}
        {shows('pcpu') && (
          <Part id="pcpu" highlight={highlight('pcpu') || highlight('recent_cid')} focused={focusedView === 'pcpu'}>
            <PcpuTable runs={runs} cpus={extent.cpus} topology={topology} timeNs={view.time_ns} />
          </Part>
        )}
      </div>
      {shows('chart') && (
        <Part id="chart" highlight={highlight('chart')} focused={focusedView === 'chart'}>
          <CostChart runs={runs} timeNs={view.time_ns} endMs={lessonDurationMs(state.workload)} />
        </Part>
      )}
      <p className="visually-hidden" data-testid="lp-digest" aria-hidden="true">{lessonDigest(state.step, view.time_ns, runs)}</p>
    </>
  )
}
