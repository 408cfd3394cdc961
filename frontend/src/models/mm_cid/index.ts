/*
 * The mm_cid model (commit 7e019dc, "sched: keep per-CPU concurrency IDs
 * cache-local", v6.13): its one descriptor for the generic app (models/types.ts
 * says what each field is for).
 *
 *   variants   v6.12 (before), v6.13 (7e019dc), v6.18; "compare" runs v6.12 and v6.13
 *   toggles    no_recent_cid, task_nr_cpus_allowed (wasm-core/src/algo/mm_cid/mm_cid.c "+flag")
 *   decoder    engine/mm_cid/mm_cid_records.ts: the core's mm_cid view bytes -> records
 *   narration  lesson_narrate.ts: the allocator's branches in plain words
 *   quiz       next_cid, next_path (quiz.ts)
 *   lesson     lesson.schema.json (its $defs of the lesson format), lesson_checks.ts;
 *              lesson_state.ts (its variants and toggles bound into the generic lesson
 *              state), lesson_controller.ts (the store the player drives), run_to.ts
 *   page       LessonPage.tsx: the free-running page at /lesson/mm_cid
 *   views      views/mm_cid/ (this model's view folder): LessonStage and its panels
 *   simulate   the Simulate page's caption of a run of the 6.18 allocator (or of none)
 */
import { lazy } from 'react'
import { algoOf, cleanToggles, MM_CID_TOGGLES, variantsOf } from './lesson_state'
import { LessonController } from './lesson_controller'
import { burstInfos, costTotals, narrateRecord, narrateStep, ratioText, whyNoCid } from './lesson_narrate'
import { MM_CID_PATHS } from './types'
import * as records from '../../engine/mm_cid/mm_cid_records'
import { VARIANT_LOOK } from '../../views/mm_cid/marks'
import { LessonStage, TAB_NAMES, VIEW_NAMES } from '../../views/mm_cid/LessonStage'
import type { LessonSchemaFragment } from '../../core/lesson/lesson_schema'
import type { ModelDescriptor } from '../types'
import { checkLessonStep } from './lesson_checks'
import schema from './lesson.schema.json'
import { quiz } from './quiz'

const RUNS = ['v6.12', 'v6.13', 'v6.18', 'v6.19'] as const

export const mmCid: ModelDescriptor = {
  id: 'mm_cid',
  title: 'mm_cid: concurrency IDs kept cache-local (7e019dc)',
  variants: {
    runs: RUNS,
    runsOf: variantsOf,
    look: VARIANT_LOOK,
  },
  toggles: {
    ids: MM_CID_TOGGLES,
    clean: cleanToggles,
    algoOf: (variant, toggles) => algoOf(variant as (typeof RUNS)[number], toggles),
  },
  decoder: {
    paths: MM_CID_PATHS,
    decodeMm: records.decodeMmCidMm,
    decodePcpu: records.decodeMmCidPcpu,
    decodeRecords: records.decodeMmCidRecords,
    decodeAreas: records.decodeMmCidAreas,
    decodeLessonHeader: records.decodeMmCidLessonHeader,
  },
  narration: { narrateStep, narrateRecord, whyNoCid, burstInfos, costTotals, ratioText },
  quiz,
  lesson: {
    schema: schema as LessonSchemaFragment,
    check: checkLessonStep,
    store: (host) => new LessonController(host),
    paths: (core) => core.mmCidPaths(),
  },
  // Loaded on first visit (its own chunk; also keeps core/route -> registry free of a cycle through the page's header).
  page: lazy(() => import('./LessonPage').then((m) => ({ default: m.MmCidLessonPage }))),
  views: {
    ids: (schema.$defs.view.enum as string[]),
    names: VIEW_NAMES,
    tabs: TAB_NAMES,
    main: 'picture',
    Stage: LessonStage,
  },
  conform: { compares: 'each cid the model gives with the one the kernel recorded (rseq_update)' },
  simulate: {
    caption: (algo) => {
      const m = /^mm_cid:v([\d.]+)/.exec(algo)
      return m
        ? {
          label: `Linux ${m[1]} mm_cid allocator`,
          title: "The workload's threads register rseq: each rseq_update carries the thread's mm_cid, from this kernel version's allocator model",
        }
        : null
    },
    absent: {
      label: 'no mm_cid (no thread registers rseq)',
      title: 'No process of this workload registers rseq, so no rseq_update reports a cid (mm_cid=-1)',
    },
  },
}
