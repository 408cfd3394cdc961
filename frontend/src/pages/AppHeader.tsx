/* The header every page shares: the name, the page tabs, then the page's own controls. */
import type { ReactNode, MouseEvent } from 'react'
import { DEFAULT_LESSON, hrefFor, type PageName } from '../core/shared/route'

export interface AppHeaderProps {
  page: PageName
  /** The machine on screen, carried over when switching pages. */
  preset?: string
  navigate: (href: string) => void
  /** Drop the subtitle on narrower screens (the page's header tools need the room). */
  compact?: boolean
  children?: ReactNode
}

const PAGES: { page: PageName; label: string; title: string }[] = [
  { page: 'topology', label: 'Topology', title: 'The machine: sockets, NUMA nodes, L3 caches, cores and CPUs' },
  { page: 'simulate', label: 'Simulate', title: 'A modelled scheduler running a workload on the machine, event by event' },
  { page: 'traces', label: 'Traces', title: 'Real kernel traces (MEASURED): upload, open locally, replay on a timeline' },
  // The first model's lesson page and its step-by-step lesson (route.ts: PAGE_PATHS).
  { page: 'lesson', label: `${DEFAULT_LESSON} lesson`, title: "The model's own page: one run, every control, the allocator's narration step by step" },
  { page: 'learn', label: 'Step by step', title: 'The lesson as steps: narration, predict-next quizzes, bug toggles; presenter mode from there' },
]

export function AppHeader({ page, preset, navigate, compact = false, children }: AppHeaderProps) {
  const go = (href: string) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    navigate(href)
  }
  return (
    <header className={`app-header${compact ? ' compact' : ''}`}>
      <div className="brand">
        <h1>kscope</h1>
        <p className="subtitle">Linux kernel scheduling on many-core machines, made visible</p>
      </div>
      <nav className="page-nav" aria-label="Pages">
        {PAGES.map((p) => {
          const href = hrefFor(p.page, preset)
          return (
            <a key={p.page} href={href} title={p.title} aria-current={p.page === page ? 'page' : undefined} onClick={go(href)} data-testid={`nav-${p.page}`}>
              {p.label}
            </a>
          )
        })}
      </nav>
      <div className="header-tools">{children}</div>
    </header>
  )
}
