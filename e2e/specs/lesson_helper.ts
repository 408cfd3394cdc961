// The lesson the generic specs open, read from the frontend's folders so that no generic
// spec names a model (frontend/scripts/check-model-names.mjs scans e2e/ outside
// e2e/specs/<model>/): the first model in frontend/src/models/order.json's order, as the
// app's own default lesson is (frontend/src/core/shared/route.ts: DEFAULT_LESSON, the first
// of virtual:models' MODEL_IDS, the src/models/ folders with an index.ts in that order:
// core/lesson/lesson_schema_build.ts modelOrder), and its lesson, which is named
// after it (frontend/src/lessons/<model>/<model>.lesson.json). Specs about one model's
// own lesson, pictures or numbers sit in e2e/specs/<model>/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const frontendSrc = new URL('../../frontend/src/', import.meta.url);
const modelsDir = new URL('models/', frontendSrc);

const order: string[] = JSON.parse(readFileSync(new URL('order.json', modelsDir), 'utf8')).order;
const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);

/** The registered models: src/models/<id>/ folders with an index.ts, in order.json's order. */
export const MODEL_IDS: readonly string[] = readdirSync(modelsDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(new URL(`${e.name}/index.ts`, modelsDir)))
  .map((e) => e.name)
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

if (!MODEL_IDS.length) throw new Error(`lesson_helper: no model folder with an index.ts in ${modelsDir.pathname}`);

/** The model whose page the header links to (/lesson/<MODEL>). */
export const MODEL = MODEL_IDS[0];
/** The default lesson's id (/learn/<LESSON>, /present/<LESSON>...). */
export const LESSON = MODEL;

const lessonFile = new URL(`lessons/${MODEL}/${LESSON}.lesson.json`, frontendSrc);
if (!existsSync(lessonFile)) throw new Error(`lesson_helper: the default lesson ${lessonFile.pathname} is missing`);

export interface LessonFileStep {
  id: string;
  title: string;
  quiz?: { id: string; choices: string[] };
}

/** The default lesson's file, as shipped. */
export const lessonData = JSON.parse(readFileSync(lessonFile, 'utf8')) as { id: string; title: string; steps: LessonFileStep[] };

/** The lesson's steps with a quiz: 0-based step, quiz id, number of choices. */
export const QUIZ_STEPS = lessonData.steps.flatMap((s, step) => (s.quiz ? [{ step, id: s.quiz.id, choices: s.quiz.choices.length }] : []));
if (!QUIZ_STEPS.length) throw new Error(`lesson_helper: ${lessonFile.pathname} has no quiz (the room and presenter specs need one)`);

/** The first quiz step with the most choices (the hardest to fit on a projector). */
export const WIDEST_QUIZ = QUIZ_STEPS.reduce((a, b) => (b.choices > a.choices ? b : a));
