/* A lesson that failed to load: every problem, one per line (file: JSON path: what is wrong). */
export function LessonError({ message }: { message: string }) {
  return (
    <section className="error-panel" role="alert" data-testid="lesson-error">
      <h2>This lesson could not be loaded</h2>
      <pre className="lesson-error-text">{message}</pre>
    </section>
  )
}

/** A lesson page before its lesson is ready: loading (no error yet), else the error. */
export function LessonNotReady({ error }: { error?: string }) {
  if (error === undefined) return <p className="status" role="status" data-testid="lesson-loading">Loading the lesson…</p>
  return <LessonError message={error} />
}
