// Shared page helpers: collect console errors, and wait until the app is idle
// (wasm loaded, first frame drawn) before asserting or taking a screenshot.
import { expect, type Page } from '@playwright/test';

/** Starts recording console errors and page errors; returns the live list. */
export function recordConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') errors.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

/** Waits for the topology view to be drawn and the network to settle. */
export async function waitForIdle(page: Page): Promise<void> {
  await expect(page.getByTestId('cpu').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
}

/** Resolves after two animation frames: whatever the last state change drew is painted. */
export const twoFrames = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));

export const artifacts = new URL('../artifacts/', import.meta.url).pathname;

/** What a picture check found: its box and pixel statistics, and every problem seen. */
export interface PictureReport {
  box: { x: number; y: number; width: number; height: number } | null;
  colours: number;
  inkFraction: number;
  problems: string[];
}

export interface PictureOptions {
  /** Smallest acceptable size in CSS px (a picture below this is not one a person can read). */
  minWidth?: number;
  minHeight?: number;
  /** Screenshot of the crop, saved under e2e/artifacts/ with this file name. */
  save?: string;
}

/**
 * Looks at a picture as a person would: its box lies inside the viewport with a
 * non-trivial size; at its centre (and at the centres of its four quarters) the
 * topmost element is the picture or inside it, so nothing covers it; and a
 * screenshot of its box is not blank (several colours, and a share of pixels
 * unlike the most common one, the background). Returns the problems found.
 */
export async function inspectPicture(page: Page, selector: string, opts: PictureOptions = {}): Promise<PictureReport> {
  const minWidth = opts.minWidth ?? 240;
  const minHeight = opts.minHeight ?? 120;
  const problems: string[] = [];
  const locator = page.locator(selector).first();
  if ((await locator.count()) === 0) return { box: null, colours: 0, inkFraction: 0, problems: [`${selector}: not on the page`] };
  await locator.scrollIntoViewIfNeeded().catch(() => {});
  const geometry = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const points = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]].map(([fx, fy]) => {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      const top = document.elementFromPoint(x, y);
      const name = (e: Element | null) => (e ? `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${[...e.classList].map((c) => `.${c}`).join('')}` : 'nothing');
      return { at: `(${Math.round(x)},${Math.round(y)})`, ok: !!top && (top === el || el.contains(top)), top: name(top) };
    });
    // What of it its ancestors let show: each one that clips (overflow not visible) cuts the box.
    let left = r.left, top = r.top, right = r.right, bottom = r.bottom;
    let clipper = '';
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const c = a.getBoundingClientRect();
      const before = (right - left) * (bottom - top);
      left = Math.max(left, c.left); top = Math.max(top, c.top); right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
      if (right <= left || bottom <= top || (right - left) * (bottom - top) < before) {
        clipper ||= `${a.tagName.toLowerCase()}${[...a.classList].map((k) => `.${k}`).join('')} (${Math.round(c.width)}x${Math.round(c.height)})`;
      }
      if (right <= left || bottom <= top) break;
    }
    const shown = Math.max(0, right - left) * Math.max(0, bottom - top);
    return {
      box: { x: r.left, y: r.top, width: r.width, height: r.height }, vw: window.innerWidth, vh: window.innerHeight, points,
      shownFraction: r.width * r.height > 0 ? shown / (r.width * r.height) : 0, clipper,
    };
  });
  const { box, vw, vh } = geometry;
  const size = `${Math.round(box.width)}x${Math.round(box.height)} at (${Math.round(box.x)},${Math.round(box.y)})`;
  if (box.width < minWidth || box.height < minHeight) problems.push(`${selector}: ${size}, smaller than ${minWidth}x${minHeight}`);
  if (box.x < -0.5 || box.y < -0.5 || box.x + box.width > vw + 0.5 || box.y + box.height > vh + 0.5) {
    problems.push(`${selector}: ${size} is not inside the ${vw}x${vh} viewport`);
  }
  if (geometry.shownFraction < 0.98) {
    problems.push(`${selector}: only ${(geometry.shownFraction * 100).toFixed(0)}% of it shows, clipped by ${geometry.clipper}`);
  }
  if (box.width >= 1 && box.height >= 1) {
    const [centre, ...quarters] = geometry.points;
    if (!centre.ok) problems.push(`${selector}: covered at its centre ${centre.at} by ${centre.top}`);
    const covered = quarters.filter((p) => !p.ok);
    if (covered.length > 1) problems.push(`${selector}: covered at ${covered.map((p) => `${p.at} by ${p.top}`).join(', ')}`);
  }
  let colours = 0, inkFraction = 0;
  const clip = {
    x: Math.max(0, box.x), y: Math.max(0, box.y),
    width: Math.min(vw, box.x + box.width) - Math.max(0, box.x), height: Math.min(vh, box.y + box.height) - Math.max(0, box.y),
  };
  if (clip.width >= 1 && clip.height >= 1) {
    const png = await page.screenshot({ clip, path: opts.save ? `${artifacts}${opts.save}` : undefined });
    ({ colours, inkFraction } = await pixelStats(page, png));
    if (colours < 4 || inkFraction < 0.01) {
      problems.push(`${selector}: blank (${colours} colours, ${(inkFraction * 100).toFixed(2)}% of pixels unlike the background)`);
    }
  } else {
    problems.push(`${selector}: nothing of it on screen to look at`);
  }
  return { box, colours, inkFraction, problems };
}

/**
 * Decodes a PNG in the page (a canvas: no decoder dependency here) and counts its
 * distinct colours (4 bits a channel) and the share of pixels unlike the most
 * common colour by more than 24 in any channel.
 */
async function pixelStats(page: Page, png: Buffer): Promise<{ colours: number; inkFraction: number }> {
  return page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const counts = new Map<number, number>();
    for (let i = 0; i < data.length; i += 4) {
      const key = ((data[i] >> 4) << 8) | ((data[i + 1] >> 4) << 4) | (data[i + 2] >> 4);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let bg = 0, most = -1;
    for (const [k, n] of counts) if (n > most) { most = n; bg = k; }
    // the background's exact colour: the first pixel in that bucket
    let br = 0, bgG = 0, bb = 0;
    for (let i = 0; i < data.length; i += 4) {
      if ((((data[i] >> 4) << 8) | ((data[i + 1] >> 4) << 4) | (data[i + 2] >> 4)) === bg) { br = data[i]; bgG = data[i + 1]; bb = data[i + 2]; break; }
    }
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i] - br) > 24 || Math.abs(data[i + 1] - bgG) > 24 || Math.abs(data[i + 2] - bb) > 24) ink++;
    }
    return { colours: counts.size, inkFraction: ink / (data.length / 4) };
  }, png.toString('base64'));
}


/** Uploads a trace file through the Traces library's picker and waits for its row. */
export async function uploadInLibrary(page: Page, file: string): Promise<void> {
  const name = file.split('/').pop()!;
  await page.getByTestId('upload').setInputFiles(file);
  await expect(page.getByTestId('trace-row').filter({ hasText: name }).first()).toBeVisible({ timeout: 25_000 });
}

/** Opens the stored trace `name` from the library's list and waits for its timeline. */
export async function openStored(page: Page, name: string): Promise<void> {
  await page.getByTestId('trace-row').filter({ hasText: name }).first().getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
}

/** The trace library's token the page keeps (send it as X-Kscope-Token). */
export const traceToken = (page: Page) => page.evaluate(() => localStorage.getItem('kscope.traceToken')!);
