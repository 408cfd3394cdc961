/*
 * /learn/<id>?step=N: a lesson step by step, for one student (solo). The step
 * and the toggles live in the URL; ← / → / space move, t flips the step's
 * toggle. Links to presenter mode and to the free-form /lesson/<model> page.
 */
import { useEffect, useRef } from 'react'
import { useUrlPosition } from '../core/lesson/lesson_route'
import { appHref, lessonRouteOf, useAppLocation, DEFAULT_LESSON } from '../core/shared/route'
import { LessonPlayer } from '../views/lesson/LessonPlayer'
import { isForeignKey, stepKeyCommand, type DigitBuffer } from '../views/lesson/keys'
import { AppHeader } from './AppHeader'
import { LessonNotReady } from './lesson/LessonError'
import { useLessonData } from './lesson/useLessonData'

export function LearnPage({ navigate, standalone = false }: { navigate: (href: string) => void; standalone?: boolean }) {
  const id = lessonRouteOf(useAppLocation().pathname)?.lesson ?? DEFAULT_LESSON
  const data = useLessonData(id)
  const [position, setPosition] = useUrlPosition('learn', id)
  const digits = useRef<DigitBuffer>({ text: '', at: 0 })
  const lesson = data.lesson

  useEffect(() => {
    if (!lesson) return
    const onKey = (e: KeyboardEvent) => {
      if (isForeignKey(e)) return
      const cmd = stepKeyCommand(e.key, position, lesson.steps, digits)
      if (cmd.kind === 'move') {
        e.preventDefault()
        setPosition(cmd.position)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [lesson, position, setPosition])

  return (
    <>
      {standalone ? (
        <header className="app-header compact">
          <div className="brand"><h1>kscope</h1></div>
          <p className="modelled" data-testid="modelled">
            <strong>MODELLED</strong> kscope's model of the kernel, not measured · exported lesson, no server ·{' '}
            <a href={appHref(`/present/${id}?step=${position.step}`)} data-testid="to-present">Present</a>
          </p>
        </header>
      ) : (
        <AppHeader page="learn" navigate={navigate} compact>
          <p className="modelled" data-testid="modelled">
            <strong>MODELLED</strong> kscope's model of the kernel, not measured ·{' '}
            <a href={appHref(`/present/${id}?step=${position.step}`)} data-testid="to-present">Present</a>
          </p>
        </AppHeader>
      )}
      {!data.lesson ? (
        <LessonNotReady error={data.error} />
      ) : (
        <LessonPlayer lesson={data.lesson} position={position} onNavigate={setPosition} mode="solo" />
      )}
    </>
  )
}
