// The lesson player (issue 8): presenter mode by keyboard, the speaker-notes window
// following over BroadcastChannel, a quiz answer computed by the model and revealed,
// a bug toggle rerunning the scenario, one view embedded, and the exported static
// lesson opened from file:// with no backend. Numbers asserted are the model's.
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

/** Waits until the player shows step `step` (0-based) with its runs drawn. */
async function waitForStep(page: Page, step: number): Promise<void> {
  await expect(page.getByTestId('lesson-player')).toHaveAttribute('data-step', String(step));
  await expect(page.getByTestId('lp-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /, { timeout: 20_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
}

const digest = (page: Page) => page.getByTestId('lp-digest').textContent();

test('presenter mode: keys move, jump, toggle, help; screenshots at projector sizes', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/present/mm_cid?step=0');
  await waitForStep(page, 0);
  await expect(page.getByTestId('lp-title')).toHaveText('What is a concurrency ID?');
  await expect(page.getByTestId('lp-count')).toHaveText('Step 1 of 16');
  await page.screenshot({ path: `${artifacts}/present-1280-step1.png` });

  await page.keyboard.press('Space');
  await waitForStep(page, 1);
  await page.keyboard.press('ArrowRight');
  await waitForStep(page, 2);
  await expect(page).toHaveURL(/\/present\/mm_cid\?step=2$/);
  await page.keyboard.press('ArrowLeft');
  await waitForStep(page, 1);
  await page.keyboard.press('5');
  await waitForStep(page, 4);
  await expect(page.getByTestId('lp-title')).toHaveText('Predict: which cid does thread 1002 get?');
  // two digits typed quickly: step 12
  await page.keyboard.press('1');
  await page.keyboard.press('2');
  await waitForStep(page, 11);
  await expect(page.getByTestId('lp-title')).toHaveText('Break it: take recent_cid out');
  await page.screenshot({ path: `${artifacts}/present-1280-step12.png` });

  await page.keyboard.press('?');
  await expect(page.getByTestId('present-help')).toBeVisible();
  await expect(page.getByTestId('present-help')).toContainText('full screen');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('present-help')).toBeHidden();

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.keyboard.press('End');
  await waitForStep(page, 15);
  await page.keyboard.press('1');
  await page.keyboard.press('5');
  await waitForStep(page, 14);
  await expect(page.getByTestId('lp-published')).toContainText('PUBLISHED');
  await page.screenshot({ path: `${artifacts}/present-1920-published.png` });
  expect(errors).toEqual([]);
});
