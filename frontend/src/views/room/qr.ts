/*
 * The join URL as a QR code, as SVG path data (npm `qrcode` computes the
 * symbol; we draw it, so no canvas or data: URL is needed and it scales
 * crisply on a projector). Error correction M (15 % of the symbol may be
 * unreadable: a projector's glare, a phone at an angle).
 */
import QRCode from 'qrcode'

export interface QrSymbol {
  /** Modules per side (21 for version 1, +4 per version). */
  size: number
  /** One "M x y h1 v1 h-1 z" square per dark module, in module units. */
  path: string
  /** The text the segments carry, read back from the symbol's data segments. */
  encoded: string
}

export function qrSymbol(text: string): QrSymbol {
  const code = QRCode.create(text, { errorCorrectionLevel: 'M' })
  const { size } = code.modules
  let path = ''
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (code.modules.get(y, x)) path += `M${x} ${y}h1v1h-1z`
    }
  }
  const encoded = code.segments
    .map((s) => (typeof s.data === 'string' ? s.data : new TextDecoder().decode(s.data as Uint8Array)))
    .join('')
  return { size, path, encoded }
}
