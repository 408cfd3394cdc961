/* A lesson that failed to load: every problem, one per line (file: JSON path: what is wrong). */
export function LessonError({ message }: { message: string }) {
  return (
    <section className="error-panel" role="alert" data-testid="lesson-error">
      <h2>This lesson could not be loaded</h2>
      <pre className="lesson-error-text">{message}</pre>
    </section>
  )
}
