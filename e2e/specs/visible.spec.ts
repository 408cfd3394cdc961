// The tests look at the screen (issue 13). For every page and mode, at 1280x720
// and 1920x1080, the page's main picture is inside the viewport with a
// non-trivial size, nothing covers it (elementFromPoint at its centre is the
// picture or inside it), and a screenshot of it is not blank. A zero-height
// picture (a model's lesson page, its compare view, before issue 13: now specs/<model>/lesson_page_visible.spec.ts) passed every test
// that only asked whether elements exist; these fail on it.
//
// One server, one browser context per size, the pages reused; two stored traces
// (uploaded through the API) and a room started by a presenter page serve every
// test. Crops land in e2e/artifacts/visible-<size>-<view>-<n>.png; a few
// deterministic views are compared with reference screenshots, with a tolerance.
import { readFileSync } from 'node:fs';
import { test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { inspectPicture, recordConsoleErrors, twoFrames, type PictureOptions } from './page_helper';
import { LESSON } from './lesson_helper';

const THREADS4 = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const VM16 = new URL('../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;

const SIZES = [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }] as const;

interface Shared {
  token: string;
  traceA: string;
  traceB: string;
}

interface View {
  name: string;
  /** The URL to open (shared state: the stored traces, the room's code). */
  url: (s: Shared & { room: string }) => string;
  /** Waits until the page says it has drawn. */
  ready: (page: Page) => Promise<void>;
  /** The picture(s): selectors, each checked. */
  pictures: { selector: string; opts?: PictureOptions }[];
  /** A reference screenshot of the whole window (deterministic views only). */
  reference?: boolean;
}

async function playerReady(page: Page): Promise<void> {
  await expect(page.getByTestId('lp-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /, { timeout: 20_000 });
  await expect(page.locator('.lesson-picture svg').first()).toBeAttached();
}

async function timelineReady(page: Page): Promise<void> {
  await expect(page.getByTestId('timeline-canvas').first()).toBeAttached({ timeout: 20_000 });
  await expect(page.getByTestId('timeline').first()).toHaveAttribute('data-level', /\w+/, { timeout: 20_000 });
  await page.waitForLoadState('networkidle');
}

const VIEWS: View[] = [
  {
    name: 'topology',
    url: () => '/?preset=classroom-8',
    ready: async (page) => {
      await expect(page.getByTestId('cpu').first()).toBeAttached();
    },
    pictures: [{ selector: '.topology svg' }],
    reference: true,
  },
  {
    name: 'simulate',
    url: () => '/simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=1&step=30',
    ready: async (page) => {
      await expect(page.getByTestId('frame-digest')).toHaveText(/^step 30\b/, { timeout: 20_000 });
      await expect(page.getByTestId('machine')).toBeAttached();
    },
    pictures: [{ selector: 'svg[data-testid="machine"]' }],
  },
  {
    name: 'learn',
    url: () => `/learn/${LESSON}?step=5`,
    ready: playerReady,
    pictures: [{ selector: '[data-testid="lp-stage"] .lesson-picture' }],
  },
  {
    name: 'present',
    url: () => `/present/${LESSON}?step=5`,
    ready: playerReady,
    pictures: [{ selector: '[data-testid="lp-stage"] .lesson-picture' }],
    reference: true,
  },
  {
    name: 'room',
    url: (s) => `/room/${s.room}`,
    ready: async (page) => {
      await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open', { timeout: 15_000 });
      await playerReady(page);
    },
    pictures: [{ selector: '[data-testid="room-page"] .lesson-picture' }],
  },
  {
    name: 'traces',
    url: (s) => `/traces?trace=${s.traceA}`,
    ready: timelineReady,
    pictures: [{ selector: '[data-testid="timeline"]' }],
  },
  {
    name: 'trace-compare',
    url: (s) => `/traces?trace=${s.traceA}&vs=${s.traceB}`,
    ready: async (page) => {
      await expect(page.getByTestId('compare-side-B')).toBeAttached({ timeout: 20_000 });
      await timelineReady(page);
    },
    pictures: [
      { selector: '[data-testid="compare-side-A"] [data-testid="timeline"]', opts: { minHeight: 80 } },
      { selector: '[data-testid="compare-side-B"] [data-testid="timeline"]', opts: { minHeight: 80 } },
    ],
  },
  {
    name: 'embed',
    url: () => `/embed/${LESSON}/5?view=picture`,
    ready: playerReady,
    pictures: [{ selector: '.lesson-picture' }],
  },
];

async function uploadTrace(browser: Browser, baseURL: string, file: string, token?: string): Promise<{ id: string; token: string }> {
  const ctx = await browser.newContext({ baseURL });
  const name = file.split('/').pop()!;
  const res = await ctx.request.post(`/api/traces?name=${encodeURIComponent(name)}`, {
    data: readFileSync(file),
    headers: { 'Content-Type': 'application/octet-stream', ...(token ? { 'X-Kscope-Token': token } : {}) },
    timeout: 60_000,
  });
  expect(res.status(), `${name}: ${await res.text()}`).toBe(201);
  const body = await res.json();
  await ctx.close();
  return { id: body.id, token: body.token };
}

let shared: Shared;

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const a = await uploadTrace(browser, baseURL!, THREADS4);
  const b = await uploadTrace(browser, baseURL!, VM16, a.token);
  shared = { token: a.token, traceA: a.id, traceB: b.id };
});

for (const size of SIZES) {
  test.describe(`${size.width}x${size.height}`, () => {
    let ctx: BrowserContext;
    let page: Page;
    let presenterCtx: BrowserContext;
    let room = '';
    let errors: string[] = [];

    test.beforeAll(async ({ browser, baseURL }) => {
      test.setTimeout(60_000);
      // The room's presenter: a page of its own, kept open while the follower is looked at.
      presenterCtx = await browser.newContext({ baseURL, viewport: size, reducedMotion: 'reduce' });
      const presenter = await presenterCtx.newPage();
      await presenter.goto(`/present/${LESSON}?step=5`);
      await playerReady(presenter);
      await presenter.getByTestId('room-start').click();
      room = ((await presenter.getByTestId('room-code').textContent()) ?? '').trim();
      await expect(presenter.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
      ctx = await browser.newContext({ baseURL, viewport: size, reducedMotion: 'reduce' });
      await ctx.addInitScript((token) => localStorage.setItem('kscope.traceToken', token), shared.token);
      page = await ctx.newPage();
      errors = recordConsoleErrors(page);
    });

    test.afterAll(async () => {
      await ctx?.close();
      await presenterCtx?.close();
    });

    for (const view of VIEWS) {
      test(`${view.name}: the picture is inside the window, uncovered and drawn`, async () => {
        errors.length = 0;
        await page.goto(view.url({ ...shared, room }));
        await view.ready(page);
        await page.waitForLoadState('networkidle');
        await twoFrames(page);
        const problems: string[] = [];
        for (const [i, p] of view.pictures.entries()) {
          const report = await inspectPicture(page, p.selector, { ...p.opts, save: `visible-${size.width}-${view.name}-${i + 1}.png` });
          problems.push(...report.problems);
        }
        await page.screenshot({ path: `${new URL('../artifacts/', import.meta.url).pathname}visible-${size.width}-${view.name}.png` });
        expect(problems, `${view.name} at ${size.width}x${size.height}`).toEqual([]);
        if (view.reference) {
          await expect(page).toHaveScreenshot(`${view.name}-${size.width}.png`, { maxDiffPixelRatio: 0.02, animations: 'disabled' });
        }
        expect(errors).toEqual([]);
      });
    }
  });
}
