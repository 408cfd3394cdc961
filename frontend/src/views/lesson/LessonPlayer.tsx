/*
 * The lesson player: one step of a lesson (data, lesson_types.ts) on its
 * model's views (the lesson's "model" in models/registry.ts: the descriptor's
 * views.Stage draws them, e.g. picture, legend, narration, costs, per-CPU
 * table, chart, published table), plus the step's plain-words narration, its
 * bug toggles and its predict-next quiz.
 *
 *   ┌ step k/N · title ─────────────────────────── MODELLED · kernel(s) ┐
 *   │ stage: the step's views, highlighted ones     │ narration        │
 *   │ framed and marked "◆ look here"; the          │ toggles          │
 *   │ presenter's pointer as a ring                 │ quiz             │
 *   └───────────────────────────────────────────────┴──── ← k/N → ────┘
 *
 * In presenter mode the stage holds one view at a time, scaled up to fill it
 * (presenterStageView picks it; tabs above switch), so a projector at 1280x720
 * shows no text under 18 px.
 *
 * Modes: 'solo' (a student alone: reveal is local), 'presenter' (large type;
 * the quiz shows the room's tally and reveals through QuizBinding), 'follower'
 * (answers go through QuizBinding; the reveal comes from the presenter), and
 * 'embed' (one view, no chrome: position.view names it).
 *
 * The player never changes the position itself: every move is onNavigate(next).
 */
import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent as ReactMouseEvent } from 'react'
import type { LessonPosition } from '../../core/lesson/lesson_position'
import { useLessonPlayer } from '../../core/lesson/lesson_player'
import type { Lesson, LessonHighlight, LessonViewId } from '../../core/lesson/lesson_types'
import { modelOf } from '../../models/registry'
import type { ModelDescriptor } from '../../models/types'
import { FitBox } from './FitBox'
import { QuizPanel } from './QuizPanel'
import './lesson.css'

export interface QuizBinding {          // supplied by the rooms layer; absent when solo
  answer?: (quizId: string, choice: string) => void      // follower answers
  tally?: Record<string, number>        // presenter: live counts per choice
  revealed?: { quizId: string; answer: string } | null  // after the presenter reveals
  reveal?: (quizId: string, answer: string) => void      // presenter only
}

export type LessonPlayerMode = 'solo' | 'presenter' | 'follower' | 'embed'

export interface LessonPlayerProps {
  lesson: Lesson
  position: LessonPosition
  onNavigate: (p: LessonPosition) => void
  mode: LessonPlayerMode
  quiz?: QuizBinding
}

/** The lesson's model (the validator accepted only registered ones). */
export function lessonModel(lesson: Lesson): ModelDescriptor {
  const model = modelOf(lesson.model)
  if (!model) throw new Error(`lesson ${lesson.id}: no model "${lesson.model}" in models/registry.ts`)
  return model
}

/**
 * The view presenter mode puts on the stage: the presenter's focus when the step shows it,
 * else the picture, else the step's first highlighted view, else its first view.
 */
export function presenterStageView(views: { show: LessonViewId[]; highlight: LessonHighlight[] }, focus: string | undefined, main = 'picture'): LessonViewId {
  const shown = views.show
  if (focus && (shown as string[]).includes(focus)) return focus as LessonViewId
  if (shown.includes(main)) return main
  return shown.find((v) => (views.highlight as string[]).includes(v)) ?? shown.find((v) => v !== 'legend') ?? main
}

export function LessonPlayer({ lesson, position, onNavigate, mode, quiz }: LessonPlayerProps) {
  const model = lessonModel(lesson)
  const { Stage, names: VIEW_NAMES, tabs: TAB_NAMES, main } = model.views
  const look = model.variants.look
  const player = useLessonPlayer(lesson, position)
  const { snapshot, step, index, toggles, answer, paths } = player
  const { state, view } = snapshot
  const { topology, runs } = view
  const stageRef = useRef<HTMLDivElement>(null)
  const ready = player.core === 'ready' && runs.length > 0 && topology !== null
  const compare = runs.length > 1
  // Presenter mode, two kernels: one picture at a time (two side by side cannot keep 18 px
  // type on a 1280x720 projector); the kernel tabs flip between them, in the same layout,
  // the cards that differ marked ≠ on both. Back to the first kernel on each step.
  const [kernelShown, setKernelShown] = useState(0)
  useEffect(() => setKernelShown(0), [index])
  const highlight = (h: LessonHighlight) => step.views.highlight.includes(h)
  const embedView = mode === 'embed' ? ((position.view as LessonViewId | undefined) ?? step.views.show[0]) : null
  // Presenter mode: one view on the stage at a time, grown to fill it (type that reads on a
  // projector); the step's other views are a click away (the view tabs), and the choice is
  // the presenter's focus (position.view), which followers see framed.
  const stageView = mode === 'presenter' ? presenterStageView(step.views, position.view, main) : null
  const oneKernel = stageView === main && compare
  const shows = (v: LessonViewId) =>
    embedView ? embedView === v
      : stageView ? stageView === v
        : step.views.show.includes(v)

  // The presenter's pointer: 0..1 of the stage box, sent at most once per frame (with the
  // position as it is then, not as it was at the mouse event).
  const raf = useRef(0)
  const latest = useRef(position)
  latest.current = position
  const onMove = useCallback(
    (e: ReactMouseEvent<HTMLDivElement>) => {
      if (mode !== 'presenter' || raf.current) return
      const box = e.currentTarget.getBoundingClientRect()
      const x = (e.clientX - box.left) / box.width
      const y = (e.clientY - box.top) / box.height
      raf.current = requestAnimationFrame(() => {
        raf.current = 0
        onNavigate({ ...latest.current, pointer: { x: Math.min(1, Math.max(0, x)), y: Math.min(1, Math.max(0, y)) } })
      })
    },
    [mode, onNavigate],
  )
  const onLeave = useCallback(() => {
    if (mode === 'presenter' && position.pointer) onNavigate({ ...position, pointer: null })
  }, [mode, onNavigate, position])
  useEffect(() => () => cancelAnimationFrame(raf.current), [])
  // The presenter double-clicks a view to focus it (position.view); followers see it framed.
  const onFocus = useCallback(
    (e: ReactMouseEvent<HTMLDivElement>) => {
      if (mode !== 'presenter') return
      const part = (e.target as HTMLElement).closest('[data-view]')
      const id = part?.getAttribute('data-view') ?? undefined
      onNavigate({ ...position, view: id && id !== position.view ? id : undefined })
    },
    [mode, onNavigate, position],
  )

  const go = (n: number) => onNavigate({ ...position, step: Math.min(lesson.steps.length - 1, Math.max(0, n)), pointer: null })
  const flip = (t: string) => onNavigate({ ...position, toggles: { ...position.toggles, [t]: !position.toggles[t] } })
  const kernels = runs.map((r) => r.variant)
  const [revealedLocal, setRevealedLocal] = useState<string | null>(null)
  const quizKey = step.quiz ? `${step.quiz.id}|${toggles.join('+')}` : ''
  useEffect(() => setRevealedLocal(null), [quizKey])

  // The views re-render when the step's state changes, not when the pointer moves (60 times a second).
  const focusedView = position.view
  const views = useMemo(() => (
    ready ? (
      <Stage snapshot={snapshot} step={step} shows={shows} highlight={highlight} focused={focusedView} toggles={toggles} paths={paths}
        mode={mode} stageView={stageView} kernelShown={kernelShown} />
    ) : null
  ), [ready, snapshot, step, embedView, stageView, focusedView, toggles.join('+'), paths, kernelShown, Stage])
  const tabs = stageView ? step.views.show : []

  const stage = (
    <div className="lp-stage" ref={stageRef} onMouseMove={onMove} onMouseLeave={onLeave} onDoubleClick={onFocus} data-testid="lp-stage"
      title={mode === 'presenter' ? 'Double-click a view to focus it for the room (again to clear)' : undefined}>
      {player.core === 'loading' && <p className="status" role="status">Loading the C core (WebAssembly)…</p>}
      {(view.problem || player.coreError) && (
        <p className="lp-problem" role="alert" data-testid="lp-problem">{player.coreError || view.problem?.message}</p>
      )}
      {(tabs.length > 1 || oneKernel) && (
        <div className="lp-view-tabs" data-testid="lp-view-tabs">
          {tabs.length > 1 && (
            <span role="tablist" aria-label="Views of this step">
              {tabs.map((v) => (
                <button key={v} type="button" role="tab" aria-selected={v === stageView} data-testid={`lp-view-${v}`} title={VIEW_NAMES[v]}
                  onClick={() => onNavigate({ ...position, view: v === presenterStageView(step.views, undefined, main) ? undefined : v })}>
                  {TAB_NAMES[v]}
                </button>
              ))}
            </span>
          )}
          {oneKernel && (
            <span role="tablist" aria-label="Kernel in the picture" className="lp-kernel-tabs">
              {runs.map((r, i) => (
                <button key={r.variant} type="button" role="tab" aria-selected={i === kernelShown} data-testid={`lp-kernel-${r.variant}`}
                  onClick={() => setKernelShown(i)} title={look[r.variant]?.name ?? r.variant}>
                  {r.variant}
                </button>
              ))}
            </span>
          )}
        </div>
      )}
      <FitBox enabled={mode === 'presenter' && stageView !== main} min={1} max={3}
        className={`lp-stage-fit${stageView === main ? ' lp-stage-picture' : ''}`} testId="lp-stage-fit">
        {views}
      </FitBox>
      {position.pointer && (
        <span className="lp-pointer" data-testid="lp-pointer" aria-hidden="true"
          style={{ left: `${position.pointer.x * 100}%`, top: `${position.pointer.y * 100}%` }} />
      )}
    </div>
  )

  if (mode === 'embed') {
    return (
      <div className="lesson-player mode-embed" data-testid="lesson-player" data-step={index} data-view={embedView ?? ''}>
        <p className="lp-embed-caption">
          <strong>{lesson.title}</strong> · step {index + 1}: {step.title} · {VIEW_NAMES[embedView ?? main]} · <span className="modelled-tag">MODELLED</span>
        </p>
        {stage}
      </div>
    )
  }

  return (
    <div className={`lesson-player mode-${mode}`} data-testid="lesson-player" data-step={index} data-ready={ready || undefined}>
      <header className="lp-head">
        <p className="lp-count" data-testid="lp-count">
          Step <strong>{index + 1}</strong> of {lesson.steps.length}
        </p>
        <h2 className="lp-title" data-testid="lp-title">{step.title}</h2>
        <p className="lp-kernels">
          <span className="modelled-tag" title="kscope's model of the kernel (wasm), not a measurement">MODELLED</span>{' '}
          {/* presenter mode: the short names (the picture's caption names the commit), so the header is one line */}
          {kernels.map((k) => (mode === 'presenter' && kernels.length > 1 ? k : look[k]?.name ?? k)).join(' vs ')}
          {state.cache === 'busy' ? ' · busy caches' : ''}
        </p>
      </header>
      <div className="lp-body">
        {stage}
        <aside className="lp-words">
          <FitBox enabled={mode === 'presenter'} min={1} className="lp-words-fit" testId="lp-words-fit">
            <p className="lp-narration" data-testid="lp-narration">{step.narration}</p>
            {view.notice && <p className="lp-notice" role="status" data-testid="lp-notice">{view.notice}</p>}
            {step.toggles.length > 0 && (
              <section className="lp-toggles" aria-label="Bug-injection toggles">
                <h3>Break it</h3>
                {step.toggles.map((t) => {
                  const def = lesson.toggles.find((d) => d.id === t)
                  const on = !!position.toggles[t]
                  return (
                    <button key={t} type="button" className={`lp-toggle${on ? ' on' : ''}`} aria-pressed={on} data-testid={`lp-toggle-${t}`}
                      onClick={() => flip(t)} disabled={mode === 'follower'} title={def?.description}>
                      <span className="lp-toggle-state">{on ? 'ON' : 'OFF'}</span> {def?.label ?? t}
                      <span className="lp-key">t</span>
                    </button>
                  )
                })}
                <p className="hint">{step.toggles.map((t) => lesson.toggles.find((d) => d.id === t)?.description).join(' ')}</p>
              </section>
            )}
            {step.quiz && (
              <QuizPanel quiz={step.quiz} answer={answer} ready={ready} mode={mode} binding={quiz}
                revealedLocal={revealedLocal} onRevealLocal={setRevealedLocal} />
            )}
          </FitBox>
          {mode !== 'follower' && (
            <nav className="lp-nav" aria-label="Lesson steps">
              <button type="button" onClick={() => go(index - 1)} disabled={index === 0} data-testid="lp-back">← Back</button>
              <ol className="lp-dots" data-testid="lp-dots">
                {lesson.steps.map((s, i) => (
                  <li key={s.id}>
                    <button type="button" className={i === index ? 'current' : ''} aria-current={i === index ? 'step' : undefined}
                      title={`${i + 1}. ${s.title}`} onClick={() => go(i)}>{i + 1}</button>
                  </li>
                ))}
              </ol>
              <button type="button" onClick={() => go(index + 1)} disabled={index === lesson.steps.length - 1} data-testid="lp-next">Next →</button>
            </nav>
          )}
        </aside>
      </div>
    </div>
  )
}
