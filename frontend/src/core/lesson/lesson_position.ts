export interface LessonPosition {
  lesson: string              // lesson id (a file in lessons/)
  step: number                // 0-based step index
  toggles: Record<string, boolean>   // bug-injection toggles on, by toggle id
  view?: string               // optional: the view id the presenter focused
  pointer?: { x: number; y: number } | null   // presenter pointer, 0..1 of the picture box
}
