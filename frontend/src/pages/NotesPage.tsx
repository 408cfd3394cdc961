/*
 * /notes/<id>: the speaker notes, in a second window beside the presenter's.
 * It follows the presenter window over a BroadcastChannel (it says hello on
 * open and gets the current position back) and can drive it: ← / → / space
 * here move the presentation.
 */
import { useEffect, useRef, useState } from 'react'
import { openLessonChannel, type LessonChannel } from '../core/lesson/lesson_channel'
import type { LessonPosition } from '../core/lesson/lesson_position'
import { lessonRouteOf, useAppLocation, DEFAULT_LESSON } from '../core/shared/route'
import { stepKeyCommand, type DigitBuffer } from '../views/lesson/keys'
import { LessonNotReady } from './lesson/LessonError'
import { useLessonData } from './lesson/useLessonData'

export function NotesPage() {
  const id = lessonRouteOf(useAppLocation().pathname)?.lesson ?? DEFAULT_LESSON
  const data = useLessonData(id)
  const [position, setPosition] = useState<LessonPosition | null>(null)
  const channel = useRef<LessonChannel | null>(null)
  const digits = useRef<DigitBuffer>({ text: '', at: 0 })

  useEffect(() => {
    const ch = openLessonChannel(id, (m) => {
      if (m.type === 'position') setPosition(m.position)
    })
    channel.current = ch
    ch?.post({ type: 'hello' })
    return () => ch?.close()
  }, [id])

  const lesson = data.lesson
  useEffect(() => {
    if (!lesson || !position) return
    const onKey = (e: KeyboardEvent) => {
      const cmd = stepKeyCommand(e.key, position, lesson.steps, digits)
      if (cmd.kind !== 'move') return
      e.preventDefault()
      channel.current?.post({ type: 'navigate', position: cmd.position })
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [lesson, position])

  if (!data.lesson) return <LessonNotReady error={data.error} />
  const l = data.lesson
  if (!position) {
    return (
      <div className="notes-page" data-testid="notes-page">
        <h1>Speaker notes: {l.title}</h1>
        <p role="status" data-testid="notes-waiting">Waiting for the presenter window (open /present/{id} in this browser)…</p>
      </div>
    )
  }
  const i = Math.min(position.step, l.steps.length - 1)
  const step = l.steps[i]
  const next = l.steps[i + 1]
  const on = step.toggles.filter((t) => position.toggles[t])
  return (
    <div className="notes-page" data-testid="notes-page" data-step={i}>
      <p className="notes-count" data-testid="notes-count">Step {i + 1} of {l.steps.length}</p>
      <h1 data-testid="notes-title">{step.title}</h1>
      <p className="notes-text" data-testid="notes-text">{step.notes}</p>
      {step.quiz && <p><strong>Quiz:</strong> {step.quiz.prompt} (the model computes the answer; reveal on the presenter screen)</p>}
      {step.toggles.length > 0 && <p><strong>Toggles:</strong> {step.toggles.map((t) => `${t} ${on.includes(t) ? 'ON' : 'off'}`).join(', ')} (key t)</p>}
      <p className="notes-next">{next ? `Next: ${i + 2}. ${next.title}` : 'Last step.'}</p>
      <p className="notes-link">← / → / space here move the presentation.</p>
    </div>
  )
}
