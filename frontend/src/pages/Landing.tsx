/*
 * The landing page's words (above the topology on "/"), and the page any
 * unknown path gets: what kscope is, where to start (the lessons, with their
 * step counts read from the shipped lesson files), the trace workbench, and
 * links to every page. Styles: landing.css, scoped to these two pages.
 */
import type { MouseEvent } from 'react'
import { lessonSummaries } from '../core/lesson/lesson_files'
import { DEFAULT_LESSON } from '../core/shared/route'
import { MODEL_IDS } from 'virtual:models'
import { AppHeader } from './AppHeader'
import './landing.css'

type Navigate = (href: string) => void

/** A link that moves inside the app without a reload (a plain link for new tabs). */
function AppLink({ href, navigate, children, testid }: { href: string; navigate: Navigate; children: React.ReactNode; testid?: string }) {
  const go = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(href)
  }
  return <a href={href} onClick={go} data-testid={testid}>{children}</a>
}

/** What kscope is and where to start: one paragraph, the lessons, the trace workbench. */
export function LandingIntro({ navigate }: { navigate: Navigate }) {
  // Titles and step counts read from the files: the lesson's own page validates it (and loads the validator).
  const lessons = lessonSummaries()
  const first = lessons.find((l) => l.id === DEFAULT_LESSON) ?? lessons[0]
  return (
    <section className="landing-intro" aria-label="About kscope" data-testid="landing-intro">
      <p className="landing-what">
        <strong>kscope</strong> shows how the Linux kernel schedules threads and hands out per-CPU
        resources on many-core machines. Each algorithm is re-implemented in C from the kernel patch and
        runs step by step in your browser (MODELLED); real kernel traces you upload are decoded and
        replayed on a timeline (MEASURED), and checked against the model.
      </p>
      <div className="landing-starts">
        {first && (
          <div className="landing-card" data-testid="landing-lessons">
            <h2>Lessons</h2>
            <p>
              Start here:{' '}
              <AppLink href={`/learn/${first.id}`} navigate={navigate} testid="start-lesson">
                the {first.id} lesson, {first.steps} steps
              </AppLink>
              {' '}— {first.title}. Also as one <AppLink href={`/lesson/${first.model}`} navigate={navigate}>free-running page</AppLink>
              {lessons.length > 1 && <> · more: {lessons.filter((l) => l !== first).map((l, i) => (
                <span key={l.id}>{i > 0 && ', '}<AppLink href={`/learn/${l.id}`} navigate={navigate}>{l.id} ({l.steps} steps)</AppLink></span>
              ))}</>}
            </p>
          </div>
        )}
        <div className="landing-card" data-testid="landing-traces">
          <h2>Real kernel traces</h2>
          <p>
            The <AppLink href="/traces" navigate={navigate} testid="start-traces">trace workbench</AppLink>: upload
            or open an ftrace, trace-cmd or perf trace, zoom its timeline, compare two, check it against the model.
          </p>
        </div>
      </div>
      <h2 className="landing-topology-title">The machine below: its topology (sockets, NUMA nodes, L3 caches, cores, CPUs)</h2>
    </section>
  )
}

/** Any path kscope has no page for: says so, names the path, and links to the pages. */
export function NotFoundPage({ navigate, path }: { navigate: Navigate; path: string }) {
  return (
    <>
      <AppHeader page="notfound" navigate={navigate} compact />
      <main className="not-found" data-testid="not-found">
        <h2>Not found: there is no page at <code>{path}</code></h2>
        <p>Try one of these:</p>
        <ul>
          <li><AppLink href="/" navigate={navigate}>Home</AppLink>: what kscope is, where to start, and the machine's topology</li>
          {MODEL_IDS.map((id) => (
            <li key={`learn-${id}`}><AppLink href={`/learn/${id}`} navigate={navigate}>The {id} lesson, step by step</AppLink></li>
          ))}
          {MODEL_IDS.map((id) => (
            <li key={`lesson-${id}`}><AppLink href={`/lesson/${id}`} navigate={navigate}>The {id} lesson as one page</AppLink></li>
          ))}
          <li><AppLink href="/simulate" navigate={navigate}>Simulate</AppLink>: a modelled scheduler, event by event</li>
          <li><AppLink href="/traces" navigate={navigate}>Traces</AppLink>: real kernel traces</li>
          <li><AppLink href="/join" navigate={navigate}>Join a room</AppLink> with a code</li>
        </ul>
      </main>
    </>
  )
}
