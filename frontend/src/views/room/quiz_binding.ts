/* What the fallback follower view needs of the room's quiz (a superset of the LessonPlayer's QuizBinding). */
export interface QuizBindingLike {
  open: { id: string; choices: string[] } | null
  mine: string | null
  answer?: (quizId: string, choice: string) => void
  revealed?: { quizId: string; answer: string } | null
}
