// The cpupri lesson in presenter mode at 1280x720, stepped with the keyboard: every step's
// views are drawn with a real size, no text under 18 px (text_size.ts), the mask line's
// owner moves from socket 1 back to socket 0 between "line-crosses" and "line-returns",
// before and after sit side by side on the compare steps, MODELLED and MEASURED are
// written out. Screenshots: e2e/artifacts/cpupri-present-1280-stepNN.png. Then the
// model's own page (/lesson/cpupri) draws the same views.
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { artifacts, recordConsoleErrors } from '../page_helper';
import { smallest, textSizes, under } from '../text_size';

const lesson = JSON.parse(readFileSync(new URL('../../../frontend/src/lessons/cpupri/cpupri.lesson.json', import.meta.url), 'utf8')) as {
  steps: { id: string; views: { show: string[] }; scenario?: { variant?: string } }[];
};

async function waitForStep(page: Page, step: number): Promise<void> {
  await expect(page.getByTestId('lesson-player')).toHaveAttribute('data-step', String(step));
  await expect(page.getByTestId('cp-stage')).toBeVisible({ timeout: 20_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
}

test('cpupri lesson, presenter mode at 1280x720: keyboard steps, views drawn, text >= 18 px, the line moves', async ({ page }) => {
  test.setTimeout(120_000);
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/present/cpupri?step=0');
  await waitForStep(page, 0);
  expect(await page.locator('.lp-dots button').count()).toBe(lesson.steps.length);
  const owners: Record<string, string | null> = {};
  let smallestSeen = Infinity;
  for (let i = 0; i < lesson.steps.length; i++) {
    const step = lesson.steps[i];
    if (i > 0) {
      await page.keyboard.press('ArrowRight');
      await waitForStep(page, i);
    }
    const where = `step ${i + 1} (${step.id})`;
    // Every view part on the stage has a real size (a zero-height picture passed every test once).
    const parts = page.locator('[data-testid="cp-stage"] [data-view]');
    const n = await parts.count();
    expect(n, `${where}: some view drawn`).toBeGreaterThan(0);
    for (let k = 0; k < n; k++) {
      const box = await parts.nth(k).boundingBox();
      const id = await parts.nth(k).getAttribute('data-view');
      expect(box, `${where}: view ${id} rendered`).not.toBeNull();
      expect(box!.width, `${where}: view ${id} width`).toBeGreaterThan(200);
      expect(box!.height, `${where}: view ${id} height`).toBeGreaterThan(40);
    }
    await expect(page.getByTestId('cp-stage')).toContainText('MODELLED');
    if (step.scenario?.variant === 'compare' && (await page.locator('[data-testid^="cp-col-"]').count()) > 0) {
      const g = await page.locator('[data-testid^="cp-col-"][data-testid$="-global"]').first().boundingBox();
      const p = await page.locator('[data-testid^="cp-col-"][data-testid$="-pernode"]').first().boundingBox();
      expect(g && p && p.x > g.x + g.width - 1, `${where}: before and after side by side`).toBe(true);
    }
    // presenter mode puts the main view (the line) on the stage when the step shows it
    if (step.views.show.includes('measured') && !step.views.show.includes('line')) await expect(page.getByTestId('cp-published')).toContainText('MEASURED');
    if (step.views.show.includes('line')) {
      owners[step.id] = await page.locator('[data-testid="cp-line-global"] .cp-owner').first().getAttribute('data-owner').catch(() => null);
    }
    await page.screenshot({ path: `${artifacts}cpupri-present-1280-step${String(i + 1).padStart(2, '0')}.png` });
    const sizes = await textSizes(page, '.present-page');
    expect(sizes.length, `${where}: text measured`).toBeGreaterThan(5);
    smallestSeen = Math.min(smallestSeen, smallest(sizes).px);
    expect.soft(under(sizes, 18), `${where}: text under 18 px`).toEqual([]);
  }
  expect(owners['line-crosses'], 'the mask line owned by socket 1 after inst1 woke there').toBe('1');
  expect(owners['line-returns'], 'and pulled back to socket 0').toBe('0');
  console.log(`cpupri presenter: smallest text ${smallestSeen.toFixed(1)} px`);
  expect(errors).toEqual([]);
});

test('the cpupri page (/lesson/cpupri) draws before and after, and the arrow keys move the model time', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/lesson/cpupri');
  await expect(page.getByTestId('cp-stage')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('cp-cpus-global')).toBeVisible();
  await expect(page.getByTestId('cp-cpus-pernode')).toBeVisible();
  const before = await page.locator('.cp-time').textContent();
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page.locator('.cp-time')).not.toHaveText(before ?? '');
  const box = await page.getByTestId('cp-line-global').boundingBox();
  expect(box!.height).toBeGreaterThan(100);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), 'nothing runs off the side at 1280').toBeLessThanOrEqual(1280);
  const sizes = await textSizes(page, '.cp-page main');
  expect(under(sizes, 18), 'page text under 18 px').toEqual([]);
  await page.screenshot({ path: `${artifacts}cpupri-page-1280.png`, fullPage: true });
  expect(errors).toEqual([]);
});
