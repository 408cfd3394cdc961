// The Simulate page: the C core (wasm) runs a workload in the browser; the
// keyboard steps it; a link with &step= reproduces the exact view.
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const CLASSROOM = '/simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=1';

/** Waits until the run's first frame is drawn and nothing is loading or gliding. */
async function waitForSim(page: Page): Promise<void> {
  await expect(page.getByTestId('frame-digest')).toHaveText(/^step \d+/);
  await expect(page.getByTestId('machine')).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
}

const digest = (page: Page) => page.getByTestId('frame-digest').textContent();

async function press(page: Page, key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

test('→ steps, ← steps back, and &step= reproduces the same view', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(CLASSROOM);
  await waitForSim(page);
  await expect(page.getByTestId('modelled')).toContainText('MODELLED');
  await expect(page.getByTestId('cpu-card')).toHaveCount(8);
  await expect(page.getByTestId('step')).toHaveText('0');

  await press(page, 'ArrowRight', 30);
  await expect(page.getByTestId('step')).toHaveText('30');
  await expect(page).toHaveURL(/[?&]step=30(&|$)/);
  const at30 = await digest(page);
  expect(at30).toMatch(/^step 30 · now \d+ ns · \d+ of 8 CPUs busy/);
  const narration = await page.getByTestId('narration').textContent();
  expect(narration).toMatch(/^t=\d+\.\d{3} ms: sched_\w+ on CPU \d: /);
  await expect(page.getByTestId('event-log').locator('tbody tr')).toHaveCount(20);

  await press(page, 'ArrowLeft', 10);
  await expect(page.getByTestId('step')).toHaveText('20');
  expect(await digest(page)).not.toBe(at30);
  await press(page, 'ArrowRight', 10);
  await expect(page.getByTestId('step')).toHaveText('30');
  expect(await digest(page)).toBe(at30);
  await expect(page.getByTestId('narration')).toHaveText(narration!);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.screenshot({ path: `${artifacts}simulate-classroom-8-1600x1000.png` });

  // The same URL with &step=30, opened fresh: the same machine at the same moment.
  const fresh = await page.context().newPage();
  await fresh.emulateMedia({ reducedMotion: 'reduce' });
  await fresh.setViewportSize({ width: 1280, height: 720 });
  await fresh.goto(`${CLASSROOM}&step=30`);
  await waitForSim(fresh);
  expect(await digest(fresh)).toBe(at30);
  await expect(fresh.getByTestId('narration')).toHaveText(narration!);
  await fresh.screenshot({ path: `${artifacts}simulate-classroom-8-1280x720.png` });
  await fresh.close();

  expect(errors).toEqual([]);
});

test('space plays and pauses', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/simulate?preset=classroom-8&workload=hackbench-2g&seed=1');
  await waitForSim(page);
  await expect(page.getByTestId('play')).toContainText('Play');
  await page.keyboard.press('Space');
  await expect(page.getByTestId('play')).toContainText('Pause');
  await expect.poll(async () => Number(await page.getByTestId('step').textContent()), { timeout: 5000 }).toBeGreaterThanOrEqual(2);
  await page.keyboard.press('Space');
  await expect(page.getByTestId('play')).toContainText('Play');
  const paused = await page.getByTestId('step').textContent();
  await page.waitForTimeout(600);
  await expect(page.getByTestId('step')).toHaveText(paused!);
  await expect(page).toHaveURL(new RegExp(`[?&]step=${paused}(&|$)`));
  expect(errors).toEqual([]);
});

test('EPYC: hackbench threads spread over several L3s; one L3 opens to its CPUs', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(CLASSROOM);
  await waitForSim(page);

  await page.getByTestId('preset-select').selectOption('epyc-9654-2s');
  await page.getByTestId('workload-select').selectOption('hackbench-2g');
  await expect(page).toHaveURL(/preset=epyc-9654-2s&workload=hackbench-2g&seed=1&step=0/);
  await expect(page.getByTestId('llc')).toHaveCount(24);
  await expect(page.locator('[data-testid="llc"][data-collapsed="true"]')).toHaveCount(24);

  // Run to the 40th sched_switch: every thread has been placed by then.
  await page.getByTestId('run-to-select').selectOption('sched_switch');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await press(page, 'n', 40);
  const busyLlcs = await page.getByTestId('llc-summary').evaluateAll((els) =>
    els.filter((el) => Number(el.getAttribute('data-busy')) > 0).map((el) => Number(el.getAttribute('data-llc'))));
  expect(busyLlcs.length).toBeGreaterThan(1);
  expect(await digest(page)).toMatch(/ of 384 CPUs busy/);
  await waitForSim(page);
  await page.screenshot({ path: `${artifacts}simulate-epyc-9654-2s-collapsed.png` });

  // Drill down: open the second busy L3 with the keyboard.
  const llc = busyLlcs[1];
  await page.locator(`[data-testid="llc"][data-llc="${llc}"] [data-testid="llc-toggle"]`).first().focus();
  await page.keyboard.press('Enter');
  const open = page.locator(`[data-testid="llc"][data-llc="${llc}"]`);
  await expect(open).toHaveAttribute('data-collapsed', 'false');
  await expect(open.getByTestId('cpu-card')).toHaveCount(16);
  const chipCpus = await page.getByTestId('task-chip').evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-cpu'))));
  const openCpus = await open.getByTestId('cpu-card').evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-cpu'))));
  expect(chipCpus.length).toBeGreaterThan(0);
  expect(chipCpus.every((cpu) => openCpus.includes(cpu))).toBe(true);
  await expect(page).toHaveURL(new RegExp(`[?&]llc=${llc}(&|$)`));
  await waitForSim(page);
  await page.screenshot({ path: `${artifacts}simulate-epyc-9654-2s-llc-open.png` });
  expect(errors).toEqual([]);
});

test('a bad custom workload is shown with its line and field', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto(CLASSROOM);
  await waitForSim(page);
  await page.getByTestId('edit-workload').click();
  const editor = page.getByTestId('workload-json');
  await expect(editor).toHaveValue(/"seed000-8core-200ms"/);
  await editor.fill((await editor.inputValue()).replace('"threads": 8', '"threads": 0'));
  await expect(page.getByTestId('workload-check')).toContainText('Line 9');
  await expect(page.getByTestId('workload-check')).toContainText('processes[0].threads');
  await expect(page.getByTestId('run-workload')).toBeDisabled();
  await editor.fill((await editor.inputValue()).replace('"threads": 0', '"threads": 4'));
  await expect(page.getByTestId('workload-check')).toContainText('accepts');
  await page.getByTestId('run-workload').click();
  await expect(page).toHaveURL(/workload=custom&.*json=/);
  await waitForSim(page);
  await page.reload();
  await waitForSim(page);
  await expect(page.getByTestId('workload-select')).toHaveValue('custom');
  expect(errors).toEqual([]);
});

test('the page tabs switch between Topology and Simulate, keeping the machine', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/?preset=epyc-9654-2s');
  await expect(page.getByTestId('cpu').first()).toBeVisible();
  await page.getByTestId('nav-simulate').click();
  await expect(page).toHaveURL(/\/simulate\?preset=epyc-9654-2s/);
  await waitForSim(page);
  await page.getByTestId('nav-topology').click();
  await expect(page.getByTestId('cpu')).toHaveCount(384);
  await page.goBack();
  await waitForSim(page);
  expect(errors).toEqual([]);
});
