// The task-centric view on the shipped 6.18 capture opened locally: thread-state lanes
// per task grouped by process, beside (below) the CPU lanes on one zoom; search by comm
// and by pid; pinning; a click on a task's run selects that CPU slice; keyboard only;
// 18 px text at 1280x720; the canvas is drawn (not blank, not zero-sized).
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, inspectPicture, recordConsoleErrors, twoFrames } from './page_helper';
import { textSizes, under } from './text_size';

const TRACE = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const TEXT = readFileSync(TRACE, 'utf-8');
/** Independent reading: the pids of python3 threads (the comm column says python3). */
const PY_PIDS = [...new Set([...TEXT.matchAll(/^\s*python3-(\d+)\s/gm)].map((m) => Number(m[1])))].sort((a, b) => a - b);

async function openTasks(page: Page, mode: 'task' | 'both') {
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('lanes-mode').selectOption(mode);
  await expect(page.getByTestId('task-view')).toBeVisible();
  await twoFrames(page);
}

test('thread-state lanes grouped by process, search, pin, and a click selects the run', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await openTasks(page, 'both');
  // Both views, one window: the CPU lanes above, the task lanes below.
  await expect(page.getByTestId('timeline-canvas')).toBeVisible();
  await page.screenshot({ path: `${artifacts}tasks-both-1280.png` });
  const pic = await inspectPicture(page, '[data-testid="task-view"] .task-scroll', { minWidth: 600, minHeight: 100, save: 'tasks-canvas.png' });
  expect(pic.problems).toEqual([]);
  await expect(page.getByTestId('task-group').filter({ hasText: 'python3 (process 25277)' })).toHaveCount(1);
  await page.screenshot({ path: `${artifacts}tasks-both-1280.png` });

  // Search by comm: only python3's threads, one process.
  await page.getByTestId('task-search').fill('python3');
  await expect(page.getByTestId('task-lane')).toHaveCount(PY_PIDS.length);
  await expect(page.getByTestId('task-group')).toHaveCount(1);
  expect(await page.getByTestId('task-lane').locator('.task-name').allTextContents()).toEqual(PY_PIDS.map((p) => `${p} python3`));
  // By pid.
  await page.getByTestId('task-search').fill(String(PY_PIDS[2]));
  await expect(page.getByTestId('task-lane')).toHaveCount(1);
  await expect(page.getByTestId('task-lane')).toContainText(`${PY_PIDS[2]} python3`);
  // Pin it; clear the search: the pinned group comes first, with it.
  await page.getByTestId('task-pin').click();
  await page.getByTestId('task-search').fill('rcu');
  await expect(page.getByTestId('task-group').first()).toHaveText('pinned');
  await expect(page.getByTestId('task-lane').first()).toContainText(`${PY_PIDS[2]} python3`);
  await expect(page.getByTestId('task-pin').first()).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('task-lane').nth(1)).toContainText('rcu');
  await page.getByTestId('task-search').fill('');

  // Zoom in (shared zoom: the CPU timeline follows) and click the pinned task's lane where it runs.
  const canvas = page.getByTestId('task-canvas');
  await canvas.focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('+');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
  // Enter on the focused (first: the pinned) task selects its run at or after the cursor.
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('task-focus')).toContainText(`python3 ${PY_PIDS[2]}`);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('details')).toContainText('Run slice on CPU');
  await expect(page.getByTestId('details').locator('dt:has-text("pid (tid)") + dd')).toHaveText(String(PY_PIDS[2]));
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}tasks-selected-1280.png` });

  // P unpins it (keyboard).
  await canvas.focus();
  await page.keyboard.press('p');
  await expect(page.getByTestId('task-group').filter({ hasText: 'pinned' })).toHaveCount(0);

  // The longest wait (latency panel): its wakeup drawn between the task lanes too.
  await page.getByTestId('latency-worst').first().click();
  await expect(page.getByTestId('task-view')).not.toHaveAttribute('data-flows', '0');
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}tasks-flows-1280.png` });

  // Presenter size: the task view's own text is 18 px or more.
  expect(under(await textSizes(page, '[data-testid="task-view"]'), 18)).toEqual([]);
  expect(errors).toEqual([]);
});

test('a click on a running stretch selects that CPU slice; slices name the comm', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await openTasks(page, 'task');
  await page.getByTestId('task-search').fill(String(PY_PIDS[1]));
  await expect(page.getByTestId('task-lane')).toHaveCount(1);
  const canvas = page.getByTestId('task-canvas');
  const box = (await canvas.boundingBox())!;
  const lane = (await page.getByTestId('task-lane').boundingBox())!;
  // Scan across the lane for a pixel column where a click selects this task's run.
  let hit = false;
  for (let f = 0.05; f < 1 && !hit; f += 0.05) {
    await canvas.click({ position: { x: box.width * f, y: lane.y - box.y + lane.height / 2 } });
    const pid = page.getByTestId('details').locator('dt:has-text("pid (tid)") + dd');
    hit = (await pid.count()) > 0 && (await pid.textContent()) === String(PY_PIDS[1]);
  }
  expect(hit).toBe(true);
  await expect(page.getByTestId('details')).toContainText('python3');
  await page.screenshot({ path: `${artifacts}tasks-only.png` });
  expect(errors).toEqual([]);
});
