/*
 * Okabe–Ito colours (Okabe & Ito, "Color Universal Design", 2008): eight hues
 * that stay distinct under the common colour-vision deficiencies. Colour never
 * carries meaning alone here: every coloured thing also has a label, a pattern
 * or a line style, and the legend names all three.
 */
export const OKABE_ITO = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const

/** What the topology view draws with what. */
export const THEME = {
  ink: '#1a1a1a',
  muted: '#555555',
  socketFill: '#ececec',
  nodeFill: '#f7f7f7',
  llcFill: '#ffffff',
  coreFill: '#ffffff',
  coreStroke: '#8a8a8a',
  /** SMT thread 0: solid sky blue. */
  thread0: OKABE_ITO.skyBlue,
  /** SMT thread 1: orange with white stripes (the stripes carry the meaning too). */
  thread1: OKABE_ITO.orange,
  /** The focused CPU's L3 domain. */
  llcHighlight: OKABE_ITO.vermillion,
  focus: OKABE_ITO.black,
} as const
