// The model folders the build found (core/lesson/lesson_schema_build.ts, lessonValidators plugin).
declare module 'virtual:models' {
  /** Ids of src/models/<id>/ folders with an index.ts, sorted. */
  export const MODEL_IDS: readonly string[]
}
