// The lesson player (issue 8): presenter mode by keyboard, the speaker-notes window
// following over BroadcastChannel, a quiz answer computed by the model and revealed,
// a bug toggle rerunning the scenario, one view embedded, and the exported static
// lesson opened from file:// with no backend. Numbers asserted are the model's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from '../page_helper';

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
  await expect(page.getByTestId('lp-count')).toHaveText('Step 1 of 17');
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

  // the pointer follows the mouse over the stage; a double-click focuses a view
  const box = (await page.getByTestId('lp-stage').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.3);
  await expect(page.getByTestId('lp-pointer')).toBeVisible();
  const dot = (await page.getByTestId('lp-pointer').boundingBox())!;
  expect(Math.abs(dot.x + dot.width / 2 - (box.x + box.width * 0.25))).toBeLessThan(4);
  await page.locator('.lp-part-picture').dblclick();
  await expect(page.locator('.lp-part-picture')).toHaveAttribute('data-focused', 'yes');
  await page.screenshot({ path: `${artifacts}/present-1280-pointer-focus.png` });
  await page.mouse.move(box.x + box.width + 200, box.y + 10);
  await expect(page.getByTestId('lp-pointer')).toHaveCount(0);

  await page.keyboard.press('?');
  await expect(page.getByTestId('present-help')).toBeVisible();
  await expect(page.getByTestId('present-help')).toContainText('full screen');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('present-help')).toBeHidden();

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.keyboard.press('End');
  await waitForStep(page, 16);
  await page.keyboard.press('1');
  await page.keyboard.press('5');
  await waitForStep(page, 14);
  await expect(page.getByTestId('lp-published')).toContainText('PUBLISHED');
  await page.screenshot({ path: `${artifacts}/present-1920-published.png` });
  expect(errors).toEqual([]);
});

test('the speaker-notes window follows the presenter, and can drive it', async ({ page, context }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/present/mm_cid?step=2');
  await waitForStep(page, 2);
  const [notes] = await Promise.all([context.waitForEvent('page'), page.getByTestId('open-notes').click()]);
  await notes.setViewportSize({ width: 1280, height: 720 });
  await expect(notes.getByTestId('notes-count')).toHaveText('Step 3 of 17');
  await expect(notes.getByTestId('notes-title')).toHaveText('A CPU keeps its cid while it is busy');
  await expect(notes.getByTestId('notes-text')).toContainText('fast path');
  await page.bringToFront();
  await page.keyboard.press('ArrowRight');
  await waitForStep(page, 3);
  await expect(notes.getByTestId('notes-count')).toHaveText('Step 4 of 17');
  await expect(notes.getByTestId('notes-title')).toHaveText('The 100 ms scan takes idle cids back');
  await notes.screenshot({ path: `${artifacts}/notes-1280.png` });
  // keys in the notes window move the presentation
  await notes.bringToFront();
  await notes.keyboard.press('ArrowRight');
  await waitForStep(page, 4);
  await expect(notes.getByTestId('notes-count')).toHaveText('Step 5 of 17');
  await expect(page).toHaveURL(/step=4$/);
  expect(errors).toEqual([]);
});

test('a predict-next quiz reveals the answer the model computed, and it differs between kernels', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/learn/mm_cid?step=4');
  await waitForStep(page, 4);
  await expect(page.getByTestId('lp-quiz')).toHaveAttribute('data-quiz', 's4-which-cid-612');
  await expect(page.getByTestId('lp-answer')).toHaveCount(0);
  await page.getByTestId('lp-choice-2').click();
  await page.getByTestId('lp-reveal').click();
  const a612 = await page.getByTestId('lp-answer').getAttribute('data-answer');
  await expect(page.getByTestId('lp-answer-source')).toContainText("v6.12 ran forward to thread 1002's next allocation");
  await expect(page.getByTestId('lp-answer-source')).toContainText('branch FIRST_FREE');
  await page.screenshot({ path: `${artifacts}/learn-1280-quiz-612.png` });
  // Same question on v6.13: the model's answer is the thread's own cid again.
  await page.keyboard.press('8');
  await waitForStep(page, 7);
  await page.getByTestId('lp-reveal').click();
  await expect(page.getByTestId('lp-answer-source')).toContainText('branch RECENT_CID');
  const a613 = await page.getByTestId('lp-answer').getAttribute('data-answer');
  expect(a613).toBe('2');
  expect(a612).not.toBe(a613);
  expect(errors).toEqual([]);
});

test('a bug toggle reruns the scenario: the picture, the narration and the computed answer change', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto('/present/mm_cid?step=11');
  await waitForStep(page, 11);
  await page.getByTestId('lp-reveal').click();
  await expect(page.getByTestId('lp-answer')).toHaveAttribute('data-answer', 'RECENT_CID');
  const before = await digest(page);
  // CPU 2 remembers cid 2 (recent_cid), although the scan took the cid itself
  await expect(page.getByTestId('lp-picture-v6.13')).toContainText('recent 2');
  await expect(page.getByTestId('lp-picture-v6.13')).not.toContainText('bug injected');
  await expect(page.getByTestId('lp-toggle-no_recent_cid')).toHaveAttribute('aria-pressed', 'false');
  await page.keyboard.press('t');
  await expect(page).toHaveURL(/step=11&toggles=no_recent_cid$/);
  await expect(page.getByTestId('lp-toggle-no_recent_cid')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('lp-picture-v6.13')).toContainText('with −no_recent_cid (bug injected)');
  // Rerun without the field: no CPU remembers a cid
  await expect(page.getByTestId('lp-picture-v6.13')).not.toContainText('recent 2');
  // The reveal was for the old run: the quiz asks again, and the model now answers otherwise.
  await expect(page.getByTestId('lp-answer')).toHaveCount(0);
  await page.getByTestId('lp-reveal').click();
  await expect(page.getByTestId('lp-answer')).toHaveAttribute('data-answer', 'FIRST_FREE');
  // Presenter mode shows one view on the stage at a time: the tabs above it switch.
  await page.getByTestId('lp-view-narration').click();
  await expect(page.getByTestId('lp-picture-v6.13')).toHaveCount(0);
  await expect(page.getByTestId('lesson-narration')).not.toContainText('recent_cid 2');
  await page.screenshot({ path: `${artifacts}/present-1920-toggle-on.png` });
  await page.getByTestId('lp-view-picture').click();
  await page.keyboard.press('t');
  await expect(page).toHaveURL(/step=11$/);
  await expect(page.getByTestId('lp-picture-v6.13')).toContainText('recent 2');
  await expect.poll(() => digest(page)).toBe(before);
  expect(errors).toEqual([]);
});

test('the old migrate-to toggle: a re-pinned thread strands cid 1 on CPU 1, in the numbers and the narration', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/present/mm_cid?step=12');
  await waitForStep(page, 12);
  await expect(page.getByTestId('lp-title')).toHaveText('Break it: the old migrate-to test');
  // One view on the stage at a time (presenter mode): the tabs switch between them.
  const cidsInUse = page.getByTestId('mm-numbers').locator('tr', { hasText: 'cids in use' });
  await page.getByTestId('lp-view-numbers').click();
  await expect(cidsInUse).toContainText('3');
  await page.getByTestId('lp-view-narration').click();
  await expect(page.getByTestId('lesson-narration')).toContainText("CPU 1's cid 1 was freed");
  const before = await digest(page);
  await page.screenshot({ path: `${artifacts}/present-1280-migrate-to-off.png` });
  await page.getByTestId('lp-view-picture').click();
  await page.keyboard.press('t');
  await expect(page).toHaveURL(/step=12&toggles=task_nr_cpus_allowed$/);
  await expect(page.getByTestId('lp-picture-v6.13')).toContainText('with −task_nr_cpus_allowed (bug injected)');
  await page.getByTestId('lp-view-numbers').click();
  await expect(cidsInUse).toContainText('4');
  await page.getByTestId('lp-view-narration').click();
  await expect(page.getByTestId('lesson-narration')).toContainText('so CPU 1 keeps cid 1');
  await expect(page.getByTestId('lesson-narration')).toContainText('the test from before 7e019dc, injected');
  await expect.poll(() => digest(page)).not.toBe(before);
  await page.screenshot({ path: `${artifacts}/present-1280-migrate-to-on.png` });
  expect(errors).toEqual([]);
});

test('space after clicking a button moves on, and does not press the button again', async ({ page }) => {
  await page.goto('/present/mm_cid?step=11');
  await waitForStep(page, 11);
  await page.getByTestId('lp-toggle-no_recent_cid').click();
  await expect(page).toHaveURL(/toggles=no_recent_cid$/);
  await page.keyboard.press('Space');
  await waitForStep(page, 12);
  await expect(page).toHaveURL(/step=12&toggles=no_recent_cid$/);
});

test('an embed URL renders one view of one step, chrome-less', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 960, height: 540 });
  await page.goto('/embed/mm_cid/5?view=picture');
  await waitForStep(page, 5);
  await expect(page.locator('.lp-part')).toHaveCount(1);
  await expect(page.locator('.lp-part')).toHaveAttribute('data-view', 'picture');
  await expect(page.getByTestId('lp-picture-v6.12').locator('svg')).toBeVisible();
  await expect(page.locator('header, nav, .lp-words')).toHaveCount(0);
  await page.screenshot({ path: `${artifacts}/embed-picture.png` });
  await page.goto('/embed/mm_cid/14?view=published');
  await waitForStep(page, 14);
  await expect(page.locator('.lp-part')).toHaveCount(1);
  await expect(page.getByTestId('lp-published')).toContainText('19,289 ns');
  await page.goto('/embed/mm_cid/3?view=nope');
  await expect(page.getByTestId('lesson-error')).toContainText('view "nope" is not a lesson view');
  expect(errors).toEqual([]);
});

test('kscope export-lesson: the static folder opens from file:// and steps with no backend', async ({ page }) => {
  // The export may first (re)build the single-file wasm (emcc, ~20 s on a busy machine) and runs a Vite build.
  test.setTimeout(180_000);
  const out = mkdtempSync(join(tmpdir(), 'kscope-export-e2e-'));
  const r = spawnSync(new URL('../../../.venv/bin/kscope', import.meta.url).pathname, ['export-lesson', 'mm_cid', '-o', out, '--json'], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ lesson: 'mm_cid', steps: 17 });
  const errors = recordConsoleErrors(page);
  // Nothing but the file itself may load: any http(s) request fails the test.
  const network: string[] = [];
  await page.route(/^https?:/, (route) => {
    network.push(route.request().url());
    return route.abort();
  });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`file://${out}/index.html`);
  await expect(page).toHaveURL(/index\.html#\/learn\/mm_cid$/);
  await waitForStep(page, 0);
  await expect(page.getByTestId('exported-app')).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await waitForStep(page, 1);
  await page.keyboard.press('ArrowRight');
  await waitForStep(page, 2);
  await expect(page).toHaveURL(/#\/learn\/mm_cid\?step=2$/);
  await page.screenshot({ path: `${artifacts}/export-file-1280.png` });
  // presenter mode inside the export, and a quiz computed by the embedded wasm
  await page.goto(`file://${out}/index.html#/present/mm_cid?step=7`);
  await waitForStep(page, 7);
  await page.getByTestId('lp-reveal').click();
  await expect(page.getByTestId('lp-answer')).toHaveAttribute('data-answer', '2');
  await page.keyboard.press('Space');
  await waitForStep(page, 8);
  expect(network).toEqual([]);
  expect(errors).toEqual([]);
  rmSync(out, { recursive: true, force: true });
});

test('the lesson page links to the step-by-step lesson', async ({ page }) => {
  await page.goto('/lesson/mm_cid');
  await page.getByTestId('to-learn').click();
  await waitForStep(page, 0);
  await expect(page).toHaveURL(/\/learn\/mm_cid$/);
  await expect(page.getByTestId('nav-learn')).toHaveAttribute('aria-current', 'page');
});
