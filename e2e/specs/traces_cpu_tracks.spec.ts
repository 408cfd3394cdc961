// More than scheduling events: a real 6.18 capture with the irq and softirq presets
// (traces/irq-softirq-linux6.18.txt.xz, opened locally) says what it holds, and zoomed in
// draws the softirq and hardirq spans inside the CPU lanes (counted on the canvas, seen in
// the screenshot); the legend says how each is drawn.
import { test, expect } from '@playwright/test';
import { artifacts, inspectPicture, recordConsoleErrors, twoFrames } from './page_helper';

const TRACE = new URL('../../traces/irq-softirq-linux6.18.txt.xz', import.meta.url).pathname;

test('softirq and hardirq spans in the CPU lanes', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('cpu-tracks-note')).toContainText('3 hardirq, 85 softirq events');
  // Step to the first hardirq (the type filter "other", Shift+→ until it is one), then zoom in about it:
  // a virtio interrupt followed by its BLOCK softirq on CPU 1.
  await page.getByTestId('filter-type').selectOption({ label: 'other (generic)' });
  const canvas = page.getByTestId('timeline-canvas');
  await canvas.focus();
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press('Shift+ArrowRight');
    if ((await page.getByTestId('details').locator('h2').textContent()) === 'irq_handler_entry') break;
  }
  await expect(page.getByTestId('details').locator('h2')).toHaveText('irq_handler_entry');
  await page.getByTestId('filter-type').selectOption({ label: 'all' });
  await canvas.focus();
  for (let i = 0; i < 12; i++) await page.keyboard.press('+');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
  await twoFrames(page);
  expect(Number(await canvas.getAttribute('data-cpu-spans'))).toBeGreaterThan(0);
  const pic = await inspectPicture(page, '[data-testid="timeline-canvas"]', { save: 'cpu-tracks-canvas.png' });
  expect(pic.problems).toEqual([]);
  await page.screenshot({ path: `${artifacts}cpu-tracks-1280.png` });
  await expect(page.locator('.trace-legend')).toContainText('softirq');

  // A wakeup made in a softirq: the wakeup panel names the handler (from the spans), not only
  // the task it interrupted. Look through each task's longest wait for one.
  await page.getByTestId('latency-scope').selectOption({ label: 'the whole trace' });
  const more = page.getByTestId('latency-more');
  if (await more.count()) await more.click();
  const worst = page.getByTestId('latency-worst');
  const n = await worst.count();
  let found = '';
  for (let k = 0; k < n && !found; k++) {
    await worst.nth(k).click();
    await expect(page.getByTestId('wakeup')).toBeVisible();
    const h = page.getByTestId('wakeup-handler');
    if (await h.count()) found = (await h.textContent())!;
  }
  expect(found).toMatch(/^(softirq \w+|irq \d+.*) \(an interrupt handler/);
  await page.getByTestId('wakeup').scrollIntoViewIfNeeded();
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}wakeup-in-softirq.png` });
  expect(errors).toEqual([]);
});
