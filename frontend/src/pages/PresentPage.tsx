/*
 * /present/<id>?step=N: presenter mode. Full screen (f), projector theme, large
 * type; keys: space / → next, ← back, digits jump, t the step's bug toggle,
 * ? help. The pointer follows the mouse over the stage (position.pointer). The
 * speaker notes open in a second window (/notes/<id>), kept in step over a
 * BroadcastChannel, and can drive the presenter from there.
 *
 * PresentView is the page without its data loading: the rooms layer wraps it,
 * passing a QuizBinding and the room's strip for the bar's corner.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { openLessonChannel, type LessonChannel } from '../core/lesson/lesson_channel'
import type { LessonPosition } from '../core/lesson/lesson_position'
import { useUrlPosition } from '../core/lesson/lesson_route'
import type { Lesson } from '../core/lesson/lesson_types'
import { appHref, lessonRouteOf, useAppLocation, DEFAULT_LESSON } from '../core/shared/route'
import { LessonPlayer, type QuizBinding } from '../views/lesson/LessonPlayer'
import { KEY_HELP, isForeignKey, stepKeyCommand, type DigitBuffer } from '../views/lesson/keys'
import { LessonNotReady } from './lesson/LessonError'
import { useLessonData } from './lesson/useLessonData'
import { PresentWithRoom } from './PresentRoom'

export interface PresentViewProps {
  lesson: Lesson
  position: LessonPosition
  onNavigate: (p: LessonPosition) => void
  quiz?: QuizBinding
  /** Extra controls for the top bar's corner (the rooms layer's "Start room", then its strip). */
  bar?: ReactNode
}

export function PresentView({ lesson, position, onNavigate, quiz, bar }: PresentViewProps) {
  const [help, setHelp] = useState(false)
  const digits = useRef<DigitBuffer>({ text: '', at: 0 })
  const channel = useRef<LessonChannel | null>(null)
  const latest = useRef(position)
  latest.current = position

  // Speaker notes: tell the notes window where we are; let it move us.
  useEffect(() => {
    const ch = openLessonChannel(lesson.id, (m) => {
      if (m.type === 'hello') ch?.post({ type: 'position', position: latest.current })
      if (m.type === 'navigate') onNavigate({ ...m.position, pointer: null })
    })
    channel.current = ch
    return () => ch?.close()
  }, [lesson.id, onNavigate])
  const stepKey = `${position.step}|${JSON.stringify(position.toggles)}`
  useEffect(() => {
    channel.current?.post({ type: 'position', position: { ...latest.current, pointer: null } })
  }, [stepKey])

  const fullscreen = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => {})
    else void document.documentElement.requestFullscreen?.().catch(() => {})
  }, [])

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isForeignKey(e)) return
      const cmd = stepKeyCommand(e.key, latest.current, lesson.steps, digits)
      if (cmd.kind === 'none') return
      e.preventDefault()
      if (cmd.kind === 'move') onNavigate(cmd.position)
      else if (cmd.kind === 'fullscreen') fullscreen()
      else if (cmd.kind === 'help') setHelp((h) => (cmd.open === 'toggle' ? !h : cmd.open))
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [lesson, onNavigate, fullscreen])

  const openNotes = () => {
    window.open(appHref(`/notes/${lesson.id}`), `kscope-notes-${lesson.id}`, 'popup,width=900,height=700')
  }

  return (
    <div className="present-page" data-testid="present-page">
      <div className="present-bar">
        <span className="brand-mini">kscope</span>
        <span className="present-title" title={lesson.title}>{lesson.title}</span>
        <span className="spacer" />
        {bar}
        <button type="button" onClick={openNotes} data-testid="open-notes" title="Speaker notes in a second window">Notes</button>
        <button type="button" onClick={fullscreen} title="Full screen (f)">Full screen</button>
        <button type="button" onClick={() => setHelp(true)} title="Keys (?)" data-testid="open-help">Keys</button>
        <a href={appHref(`/learn/${lesson.id}?step=${position.step}`)}>Leave</a>
      </div>
      <LessonPlayer lesson={lesson} position={position} onNavigate={onNavigate} mode="presenter" quiz={quiz} />
      {help && (
        <div className="present-help" role="dialog" aria-modal="true" aria-label="Keys" data-testid="present-help" onClick={() => setHelp(false)}>
          <div>
            <h2>Keys</h2>
            <table>
              <tbody>
                {KEY_HELP.map(([k, what]) => (
                  <tr key={k}>
                    <td><kbd>{k}</kbd></td>
                    <td>{what}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p>Press Esc or click to close.</p>
          </div>
        </div>
      )}
    </div>
  )
}

/**
 * Presenter position: step and toggles in the URL; the pointer (60 times a second) and
 * the focused view in memory. A new step clears the focus.
 */
export function usePresenterPosition(id: string): [LessonPosition, (p: LessonPosition) => void] {
  const [urlPosition, setUrl] = useUrlPosition('present', id)
  const [live, setLive] = useState<{ pointer: LessonPosition['pointer']; view?: string }>({ pointer: null })
  const position = useMemo(() => ({ ...urlPosition, pointer: live.pointer, ...(live.view ? { view: live.view } : {}) }), [urlPosition, live])
  const latest = useRef(urlPosition)
  latest.current = urlPosition
  const onNavigate = useCallback(
    (p: LessonPosition) => {
      const u = latest.current
      const moved = p.step !== u.step
      if (moved || JSON.stringify(p.toggles) !== JSON.stringify(u.toggles)) setUrl(p)
      setLive({ pointer: p.pointer ?? null, view: moved ? undefined : p.view })
    },
    [setUrl],
  )
  return [position, onNavigate]
}

export function PresentPage() {
  const id = lessonRouteOf(useAppLocation().pathname)?.lesson ?? DEFAULT_LESSON
  const data = useLessonData(id)
  const [position, onNavigate] = usePresenterPosition(id)
  if (!data.lesson) return <LessonNotReady error={data.error} />
  return <PresentWithRoom lesson={data.lesson} position={position} onNavigate={onNavigate} />
}
