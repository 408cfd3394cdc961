/*
 * The app an exported lesson runs (kscope export-lesson NAME -o DIR): only the
 * lesson pages (learn, present, notes, embed), hash-routed so that
 * index.html#/present/<id>?step=3 works from file:// and from any static host,
 * and built as one classic script with the wasm embedded (vite.export.config.ts,
 * scripts/export-lesson.mjs). No backend is ever contacted.
 */
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { navigateTo, useRoute } from './core/shared/route'
import { EmbedPage } from './pages/EmbedPage'
import { LearnPage } from './pages/LearnPage'
import { NotesPage } from './pages/NotesPage'
import { PresentPage } from './pages/PresentPage'
import './index.css'

declare const __KSCOPE_EXPORT_LESSON__: string

if (!window.location.hash.startsWith('#/')) {
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/learn/${__KSCOPE_EXPORT_LESSON__}`)
}

function ExportApp() {
  const { page, navigate } = useRoute()
  return (
    <div className={`app page-${page} exported`} data-testid="exported-app">
      {page === 'present' ? <PresentPage /> : page === 'notes' ? <NotesPage /> : page === 'embed' ? <EmbedPage />
        : page === 'learn' ? <LearnPage navigate={navigate} standalone />
        : <p className="status" role="status">Not part of this exported lesson. <a href={`#/learn/${__KSCOPE_EXPORT_LESSON__}`} onClick={(e) => { e.preventDefault(); navigateTo(`/learn/${__KSCOPE_EXPORT_LESSON__}`) }}>Open the lesson</a></p>}
    </div>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ExportApp />
  </StrictMode>,
)
