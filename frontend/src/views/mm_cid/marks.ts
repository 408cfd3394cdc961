/*
 * What the lesson draws with what. Okabe–Ito hues (palette.ts), and never a
 * colour alone: an L3's colour always comes with its "L3 #k" label, a set bit
 * is a "1" on a dark cell, a cold area is hatched and says "cold", each kernel
 * has its own mark style (hollow v6.12, filled v6.13) besides its hue, and each
 * burst source its own glyph shape.
 */
import { symbolCircle, symbolCross, symbolDiamond, symbolSquare, symbolStar, symbolTriangle, symbolWye, type SymbolType } from 'd3'
import type { BurstSource } from '../../core/lesson/lesson_timeline'
import { OKABE_ITO } from '../palette'

/** L3 colours by id (cycling), each with the text colour that reads on it. */
const LLC_HUES: readonly { fill: string; text: string }[] = [
  { fill: OKABE_ITO.skyBlue, text: '#000000' },
  { fill: OKABE_ITO.orange, text: '#000000' },
  { fill: OKABE_ITO.bluishGreen, text: '#000000' },
  { fill: OKABE_ITO.reddishPurple, text: '#000000' },
  { fill: OKABE_ITO.yellow, text: '#000000' },
  { fill: OKABE_ITO.blue, text: '#ffffff' },
  { fill: OKABE_ITO.vermillion, text: '#000000' },
]

export const llcHue = (llc: number) => LLC_HUES[((llc % LLC_HUES.length) + LLC_HUES.length) % LLC_HUES.length]

/** Each kernel: a hue, a mark style and a line style (the legend names all three). */
export const VARIANT_LOOK: Record<string, { colour: string; hollow: boolean; dash: string | undefined; name: string }> = {
  'v6.12': { colour: OKABE_ITO.vermillion, hollow: true, dash: '6 4', name: 'v6.12 (before 7e019dc)' },
  'v6.13': { colour: OKABE_ITO.blue, hollow: false, dash: undefined, name: 'v6.13 (7e019dc)' },
  'v6.18': { colour: OKABE_ITO.bluishGreen, hollow: false, dash: '2 3', name: 'v6.18' },
  'v6.19': { colour: OKABE_ITO.reddishPurple, hollow: true, dash: '1 3', name: 'v6.19 / 7.x' },
}

/** The glyph of each burst source in the chart (shapes, not colours). */
export const SOURCE_SYMBOL: Record<BurstSource, SymbolType> = {
  core: symbolCircle,
  llc: symbolSquare,
  'same-llc-core': symbolTriangle,
  'other-llc': symbolDiamond,
  'other-socket': symbolStar,
  dram: symbolCross,
  unknown: symbolWye,
}

/** Text glyphs for the same sources (tables, narration, legends in HTML). */
export const SOURCE_GLYPH: Record<BurstSource, string> = {
  core: '●',
  llc: '■',
  'same-llc-core': '▲',
  'other-llc': '◆',
  'other-socket': '★',
  dram: '✚',
  unknown: '?',
}

export const INK = '#1a1a1a'
export const MUTED = '#555555'
/** Compare mode's "this differs from the other kernel" outline. */
export const DIFF = OKABE_ITO.vermillion
/** Motion: the cid chip and a bit that just changed. */
export const MOTION = OKABE_ITO.orange
