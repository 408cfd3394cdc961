// The mm_cid lesson page's pictures looked at (moved from visible.spec.ts, issue 13): at
// 1280x720 and 1920x1080 its single and compare views' pictures are inside the viewport
// with a non-trivial size, uncovered, not blank (a zero-height compare view once passed
// every test that only asked whether elements exist); the compare view is compared with
// reference screenshots, with a tolerance. Crops land in e2e/artifacts/visible-<size>-<view>-<n>.png.
import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import { artifacts, inspectPicture, recordConsoleErrors, twoFrames, type PictureOptions } from '../page_helper';

const SIZES = [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }] as const;

interface View {
  name: string;
  url: string;
  ready: (page: Page) => Promise<void>;
  pictures: { selector: string; opts?: PictureOptions }[];
  /** A reference screenshot of the whole window. */
  reference?: boolean;
}

async function lessonReady(page: Page): Promise<void> {
  await expect(page.getByTestId('lesson-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /, { timeout: 20_000 });
  await expect(page.locator('[data-testid^="picture-v6"] svg').first()).toBeAttached();
}

const VIEWS: View[] = [
  {
    name: 'lesson-single',
    url: '/lesson/mm_cid?variant=v6.13',
    ready: lessonReady,
    pictures: [{ selector: '[data-testid="picture-v6.13"] svg' }],
  },
  {
    name: 'lesson-compare',
    url: '/lesson/mm_cid',
    ready: lessonReady,
    pictures: [
      { selector: '[data-testid="picture-v6.12"]' },
      { selector: '[data-testid="picture-v6.13"]' },
      { selector: '[data-testid="cost-chart"]', opts: { minHeight: 80 } },
    ],
    reference: true,
  },
];

for (const size of SIZES) {
  test.describe(`${size.width}x${size.height}`, () => {
    let ctx: BrowserContext;
    let page: Page;
    let errors: string[] = [];

    test.beforeAll(async ({ browser, baseURL }) => {
      ctx = await browser.newContext({ baseURL, viewport: size, reducedMotion: 'reduce' });
      page = await ctx.newPage();
      errors = recordConsoleErrors(page);
    });

    test.afterAll(async () => {
      await ctx?.close();
    });

    for (const view of VIEWS) {
      test(`${view.name}: the picture is inside the window, uncovered and drawn`, async () => {
        errors.length = 0;
        await page.goto(view.url);
        await view.ready(page);
        await page.waitForLoadState('networkidle');
        await twoFrames(page);
        const problems: string[] = [];
        for (const [i, p] of view.pictures.entries()) {
          const report = await inspectPicture(page, p.selector, { ...p.opts, save: `visible-${size.width}-${view.name}-${i + 1}.png` });
          problems.push(...report.problems);
        }
        await page.screenshot({ path: `${artifacts}visible-${size.width}-${view.name}.png` });
        expect(problems, `${view.name} at ${size.width}x${size.height}`).toEqual([]);
        if (view.reference) {
          await expect(page).toHaveScreenshot(`${view.name}-${size.width}.png`, { maxDiffPixelRatio: 0.02, animations: 'disabled' });
        }
        expect(errors).toEqual([]);
      });
    }
  });
}
