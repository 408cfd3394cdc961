/* The step's data movements in words, beside the picture's title: what the arrows show. */
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import { SOURCE_LABELS, isTransfer } from '../../core/lesson/lesson_timeline'
import type { Topology } from '../../core/shared/types'
import { SOURCE_GLYPH } from './marks'
import { transferFrom } from './picture'

export function TransferCaption({ run, topology }: { run: LessonRunView; topology: Topology }) {
  const bursts = run.stepBursts
  if (!bursts.length) return null
  return (
    <span className="transfer-caption" data-testid={`transfer-caption-${run.variant}`}>
      {bursts.map((b) => (
        <span key={b.n} className={isTransfer(b.source) || b.source === 'dram' ? 'moved' : 'stayed'}>
          {isTransfer(b.source) || b.source === 'dram'
            ? `➜ ${b.warmup ? 'warm-up' : 'burst'} on CPU ${b.cpu}: area[${b.index}] ${transferFrom(b.source, b.fromCpu, topology)}`
            : `${SOURCE_GLYPH[b.source]} ${b.warmup ? 'warm-up' : 'burst'} on CPU ${b.cpu}: area[${b.index}] hit in ${SOURCE_LABELS[b.source]}`}
        </span>
      ))}
    </span>
  )
}
