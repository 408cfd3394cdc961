/* Marks shared by the drawing and its legend. */
import { THEME } from '../palette'

export const SMT_STRIPES_ID = 'kscope-smt-stripes'

/** The pattern that marks SMT thread 1 (stripes), so threads differ by more than hue. */
export function Defs({ id = SMT_STRIPES_ID }: { id?: string }) {
  return (
    <defs>
      <pattern id={id} patternUnits="userSpaceOnUse" width="10" height="10" patternTransform="rotate(45)">
        <rect width="10" height="10" fill={THEME.thread1} />
        <rect width="4" height="10" fill="#ffffff" fillOpacity="0.5" />
      </pattern>
    </defs>
  )
}

/** Fill for a CPU square by SMT thread index: solid for thread 0, striped for the others. */
export const cpuFill = (smtIndex: number, stripesId = SMT_STRIPES_ID) =>
  smtIndex === 0 ? THEME.thread0 : `url(#${stripesId})`
