// How large the text on a page is drawn, in screen pixels (issue 13: no text on a
// projector view under 18 px at 1280x720).
//
// Every visible text node under a root is measured two ways:
//   - HTML text: its computed font-size times the scale of every CSS transform on the way
//     up (FitBox scales a view with transform: scale(s));
//   - SVG text: its computed font-size (user units) times the scale of the element's
//     getScreenCTM() (viewBox to box, and any transform in the drawing), times the CSS
//     transforms above the <svg>; checked against a second estimate, the viewBox ratio of
//     the <svg>'s box (preserveAspectRatio meet: the smaller ratio), so a measurement that
//     goes wrong one way shows up as a disagreement, not as a pass.
import type { Page } from '@playwright/test';

export interface TextSize {
  /** Effective size on screen, px. */
  px: number;
  text: string;
  /** true: inside an <svg>. */
  svg: boolean;
  /** The second estimate (SVG text only), px. */
  check?: number;
}

/** Sizes of every visible text node under `root` (hidden, aria-hidden and off-screen text skipped). */
export async function textSizes(page: Page, root: string): Promise<TextSize[]> {
  return page.evaluate((root) => {
    const out: { px: number; text: string; svg: boolean; check?: number }[] = [];
    const cssScale = (el: Element | null): number => {
      let s = 1;
      for (let e = el; e; e = e.parentElement) {
        if (e instanceof SVGElement && !(e instanceof SVGSVGElement)) continue; // the drawing's own transforms: in the CTM
        const t = getComputedStyle(e).transform;
        if (t && t !== 'none') {
          const m = new DOMMatrixReadOnly(t);
          s *= Math.hypot(m.a, m.b);
        }
      }
      return s;
    };
    const base = document.querySelector(root);
    if (!base) return [{ px: 0, text: `${root}: not on the page`, svg: false }];
    const walker = document.createTreeWalker(base, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = (n.textContent ?? '').trim();
      if (!text) continue;
      const el = n.parentElement!;
      if (el.closest('.visually-hidden, [aria-hidden="true"], title, desc, style, script')) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      if (rects.length === 0) continue;
      if (!rects.some((r) => r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth)) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
      const font = parseFloat(style.fontSize);
      const svg = el.closest('svg');
      if (!svg || !(el instanceof SVGGraphicsElement)) {
        out.push({ px: font * cssScale(el), text: text.slice(0, 48), svg: false });
        continue;
      }
      // getScreenCTM: user units of this element to the viewport (viewBox, drawing transforms);
      // Chromium leaves the CSS transforms above the <svg> out of it, so they are multiplied in.
      const ctm = el.getScreenCTM();
      const above = cssScale(svg);
      const px = ctm ? font * Math.hypot(ctm.a, ctm.b) * above : 0;
      let check: number | undefined;
      const vb = svg.viewBox.baseVal;
      if (vb && vb.width > 0 && vb.height > 0) {
        const box = svg.getBoundingClientRect();
        const sx = box.width / vb.width;
        const sy = box.height / vb.height;
        check = font * (svg.getAttribute('preserveAspectRatio') === 'none' ? sx : Math.min(sx, sy));
      }
      out.push({ px, text: text.slice(0, 48), svg: true, check });
    }
    return out;
  }, root);
}

/** The texts under `min` px, as "12.3 px: text" lines (the first 20). */
export function under(sizes: TextSize[], min: number): string[] {
  return sizes.filter((s) => s.px < min - 0.05).slice(0, 20).map((s) => `${s.px.toFixed(1)} px: ${s.text}`);
}

/** SVG texts whose two estimates disagree by more than 3% (a broken measurement). */
export function disagreements(sizes: TextSize[]): string[] {
  return sizes
    .filter((s) => s.svg && s.check !== undefined && Math.abs(s.px - s.check) > 0.03 * Math.max(s.px, s.check))
    .slice(0, 10)
    .map((s) => `${s.text}: CTM ${s.px.toFixed(1)} px, viewBox ${s.check!.toFixed(1)} px`);
}

/** The smallest size, and its text. */
export function smallest(sizes: TextSize[]): { px: number; text: string } {
  return sizes.reduce((m, s) => (s.px < m.px ? { px: s.px, text: s.text } : m), { px: Infinity, text: '' });
}
