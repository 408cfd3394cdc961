// The build's precompiled lesson validators (vite.config.ts, lessonValidators plugin).
declare module 'virtual:lesson-validators' {
  import type { CompiledValidator } from './lesson_schema'
  const validators: Record<string, { schema: Record<string, unknown>; validate: CompiledValidator } | undefined>
  export default validators
}
