/* What the picture's marks mean, in one wrapped line under it (each mark has words, not only a colour). */
import { llcHue } from './marks'

export function PictureLegend({ compare, has613 }: { compare: boolean; has613: boolean }) {
  return (
    <p className="lesson-legend" aria-label="Legend" data-testid="picture-legend">
      <span>
        <span className="legend-badge">3</span>CPU owns cid 3
      </span>
      {has613 && <span>recent n: CPU's last cid</span>}
      <span>
        <span className="legend-bit set">1</span>
        <span className="legend-bit">0</span> cid taken / free
      </span>
      <span>
        <span className="legend-area" style={{ background: llcHue(0).fill }}>L3 #0</span>area's lines in L3 #0
      </span>
      <span>
        <span className="legend-area cold">cold</span>in no cache
      </span>
      <span>
        <strong>➜</strong> lines pulled across
      </span>
      <span>
        <span className="legend-chip-motion">cid n</span>handed out
      </span>
      {compare && (
        <span>
          <strong className="legend-diff">≠</strong> kernels differ
        </span>
      )}
    </p>
  )
}
