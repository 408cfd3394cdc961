/* The join URL as a QR code (SVG), with the URL written under it for those who type. */
import { useMemo } from 'react'
import { qrSymbol } from './qr'

export function QrCode({ text, size = 180 }: { text: string; size?: number }) {
  const qr = useMemo(() => qrSymbol(text), [text])
  const quiet = 4 // the standard's quiet zone, in modules
  const box = qr.size + 2 * quiet
  return (
    <svg className="room-qr" width={size} height={size} viewBox={`${-quiet} ${-quiet} ${box} ${box}`} role="img"
         aria-label={`QR code of ${qr.encoded}`} data-testid="room-qr" data-encoded={qr.encoded} shapeRendering="crispEdges">
      <rect x={-quiet} y={-quiet} width={box} height={box} fill="#ffffff" />
      <path d={qr.path} fill="#000000" />
    </svg>
  )
}
