/*
 * The cpupri model (seed 001, Pan Deng, "sched/rt: Split cpupri_vec->cpumask to per NUMA
 * node to reduce contention"; kernel/sched/cpupri.c v6.12): its one descriptor for the
 * generic app (models/types.ts says what each field is for).
 *
 *   variants   global (v6.12, before), pernode (the seed, after), pernode-kscope (kscope's
 *              6.12 patch); "compare" runs global and pernode side by side (runs.ts)
 *   toggles    unordered_set: cpupri_set's barrier order dropped (the bug toggle)
 *   decoder    engine/cpupri/cpupri_records.ts: the core's cpupri view bytes -> records
 *   narration  narrate.ts: the levels, the searches and the mask line in words; each RT placement
 *   quiz       next_cpu (quiz.ts): where an RT thread is next woken or pushed
 *   lesson     lesson.schema.json, lesson_checks.ts, lesson_store.ts (the store the player drives)
 *   page       CpupriPage.tsx: the free-running page at /lesson/cpupri
 *   views      views/cpupri/: CPUs by socket, the mask line, counts, MEASURED vs MODELLED, narration
 *   simulate   the Simulate page's caption of a cpupri run
 */
import { lazy } from 'react'
import * as records from '../../engine/cpupri/cpupri_records'
import type { LessonSchemaFragment } from '../../core/lesson/lesson_schema'
import { CpupriStage, TAB_NAMES, VIEW_NAMES } from '../../views/cpupri/CpupriStage'
import type { ModelDescriptor } from '../types'
import { checkLessonStep } from './lesson_checks'
import { CpupriLessonStore } from './lesson_store'
import { narrateRecord, narrateRun, narrateStep } from './narrate'
import { PATHS, quiz } from './quiz'
import { algoOf, cleanToggles, CPUPRI_TOGGLES, RUNS, runsOf, VARIANT_LOOK } from './runs'
import schema from './lesson.schema.json'

const PATH_HELP: Record<string, string> = {
  WAKEUP: 'an RT thread woke on this CPU (select_task_rq_rt, which asks find_lowest_rq / cpupri_find when its CPU is busy)',
  MIGRATE: 'push_rt_task or pull_rt_task moved an RT thread to this CPU (find_lowest_rq)',
}

export const cpupri: ModelDescriptor = {
  id: 'cpupri',
  title: 'cpupri: RT CPU selection and per-node priority masks (seed 001)',
  variants: { runs: RUNS, runsOf, look: VARIANT_LOOK },
  toggles: { ids: CPUPRI_TOGGLES, clean: cleanToggles, algoOf },
  decoder: {
    paths: PATHS,
    decodeSummary: records.decodeCpupriSummary,
    decodeC2cRows: records.decodeCpupriC2cRows,
    decodeLevels: records.decodeCpupriLevels,
  },
  narration: { narrateStep, narrateRun, narrateRecord },
  quiz,
  lesson: {
    schema: schema as LessonSchemaFragment,
    check: checkLessonStep,
    store: (host) => new CpupriLessonStore(host),
    paths: () => PATHS.map((name) => ({ name, help: PATH_HELP[name] })),
  },
  page: lazy(() => import('./CpupriPage').then((m) => ({ default: m.CpupriLessonPage }))),
  views: {
    ids: schema.$defs.view.enum as string[],
    names: VIEW_NAMES,
    tabs: TAB_NAMES,
    main: 'line',
    Stage: CpupriStage,
  },
  simulate: {
    caption: (algo) => {
      const m = /^cpupri:([a-z-]+)(\+unordered_set)?/.exec(algo)
      return m
        ? {
          label: `cpupri ${m[1]}${m[2] ? ' (bug: unordered cpupri_set)' : ''}`,
          title: "RT wakeups and pushes pick their CPU through the model's cpupri_find; every mask access goes through the cost model",
        }
        : null
    },
    absent: {
      label: 'no cpupri (no RT task)',
      title: 'The run models no RT priority map (cpupri): its algo is not cpupri:<variant>',
    },
  },
}
