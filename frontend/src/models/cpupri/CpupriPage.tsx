/*
 * The cpupri model's free-running page (/lesson/cpupri): pick the kernel (or before and
 * after side by side), the bug toggle and a model time; the stage shows the same views as
 * the lesson. Keyboard: left/right move 0.05 ms, shift+arrows 1 ms.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react'
import { useKscopeCore } from '../../core/machine/machine'
import { BENCHMARK_WORKLOAD } from '../../core/lesson/lesson_state'
import { AppHeader } from '../../pages/AppHeader'
import { ErrorPanel } from '../../pages/ErrorPanel'
import { CpupriStage, VIEW_IDS } from '../../views/cpupri/CpupriStage'
import { CpupriLessonStore } from './lesson_store'
import { SCENARIO_VARIANTS } from './runs'

const PRESET = 'classroom-2s-16'
const END_MS = 20

export function CpupriLessonPage({ navigate }: { navigate: (href: string) => void }) {
  const core = useKscopeCore()
  const store = useMemo(() => new CpupriLessonStore(), [])
  useEffect(() => (core.status === 'ready' ? store.start(core.core) : undefined), [core, store])
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot)
  const [variant, setVariant] = useState<string>('compare')
  const [bug, setBug] = useState(false)
  const [ms, setMs] = useState(1.2)
  useEffect(() => {
    if (core.status !== 'ready') return
    store.showStep({ variant, preset: PRESET, workload: BENCHMARK_WORKLOAD, cache: 'idle', seed: 1, toggles: bug ? ['unordered_set'] : [] },
      { time_ms: ms })
  }, [core, store, variant, bug, ms])
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement | null)?.closest?.('input, select, textarea')) return
      const d = e.shiftKey ? 1 : 0.05
      if (e.key === 'ArrowRight') setMs((m) => Math.min(END_MS, +(m + d).toFixed(3)))
      else if (e.key === 'ArrowLeft') setMs((m) => Math.max(0, +(m - d).toFixed(3)))
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  const problem = snapshot.view.problem
  return (
    <div className="page lesson-page cp-page">
      <AppHeader page="lesson" preset={PRESET} navigate={navigate} compact />
      <main>
        <h1>cpupri: where an RT task goes, and the mask line that crosses sockets</h1>
        <form className="cp-controls" onSubmit={(e) => e.preventDefault()}>
          <label>kernel{' '}
            <select value={variant} onChange={(e) => setVariant(e.target.value)}>
              {SCENARIO_VARIANTS.map((v) => <option key={v} value={v}>{v === 'compare' ? 'before and after' : v}</option>)}
            </select>
          </label>{' '}
          <label><input type="checkbox" checked={bug} onChange={(e) => setBug(e.target.checked)} /> bug: cpupri_set's barrier order dropped</label>{' '}
          <label>model time (ms){' '}
            <input type="range" min={0} max={END_MS} step={0.05} value={ms} onChange={(e) => setMs(Number(e.target.value))} aria-label="model time, ms" />
          </label>{' '}
          <output>{ms.toFixed(2)} ms</output>
        </form>
        {core.status === 'error' && <ErrorPanel title="The C core (WebAssembly) failed" message={core.message} />}
        {problem && <p role="status">{problem.message}</p>}
        <CpupriStage snapshot={snapshot} step={null} shows={(v) => (VIEW_IDS as readonly string[]).includes(v)} highlight={() => false}
          focused={undefined} toggles={bug ? ['unordered_set'] : []} paths={[]} mode="solo" stageView={null} kernelShown={0} />
      </main>
    </div>
  )
}
