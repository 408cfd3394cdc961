// Export (issue 19 item 8): on an open stored trace (the 16-vCPU VM capture), the Export
// controls are on screen at 1280x720; "Export window" after zooming in downloads Perfetto /
// Chrome trace-event JSON of the window only, and "Export whole trace" as ftrace text
// downloads every event (one line per event the page counts).
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const VM16 = new URL('../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;
const CPU_PID = 10_000_000;

test.use({ viewport: { width: 1280, height: 720 } });

test('export the window as Perfetto JSON and the whole trace as ftrace text', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/traces');
  await page.getByTestId('upload').setInputFiles(VM16);
  const row = page.getByTestId('trace-row').filter({ hasText: 'intermittent8-linux6.12-vm16.txt' }).first();
  await expect(row).toBeVisible({ timeout: 25_000 });
  await row.getByRole('button', { name: 'Open' }).click();
  const canvas = page.getByTestId('timeline-canvas');
  await expect(canvas).toBeVisible({ timeout: 20_000 });
  const total = Number((await page.getByTestId('event-count').innerText()).replace(/,/g, ''));
  expect(total).toBe(1713);

  // The controls are visible inside the 1280x720 viewport, with real size.
  const controls = page.getByTestId('trace-export');
  await expect(controls).toBeVisible();
  for (const id of ['export-format', 'export-window', 'export-whole']) {
    const box = (await page.getByTestId(id).boundingBox())!;
    expect(box.height).toBeGreaterThan(20);
    expect(box.width).toBeGreaterThan(40);
    expect(box.y + box.height).toBeLessThanOrEqual(720);
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
  }
  await page.screenshot({ path: `${artifacts}traces-export-controls-1280.png` });

  // Zoom in twice (keyboard, on the timeline): the window is about a quarter of the trace.
  await canvas.focus();
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.waitForTimeout(400);

  await expect(page.getByTestId('export-format')).toHaveValue('chrome-json');
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-window').click()]);
  expect(json.suggestedFilename()).toMatch(/^intermittent8-linux6\.12-vm16\.txt\.\d+-\d+\.json$/);
  const doc = JSON.parse(readFileSync((await json.path())!, 'utf-8'));
  expect(doc.displayTimeUnit).toBe('ns');
  const { t0_ns: t0, t1_ns: t1, events } = doc.otherData;
  expect(events).toBeGreaterThan(50);
  expect(events).toBeLessThan(total);
  const slices = doc.traceEvents.filter((e: { ph: string }) => e.ph === 'X');
  expect(slices.length).toBeGreaterThan(10);
  for (const e of doc.traceEvents.filter((x: { ph: string }) => x.ph !== 'M')) {
    const ns = Math.round(e.ts * 1000);
    expect(ns).toBeGreaterThanOrEqual(t0);
    expect(ns).toBeLessThan(t1);
    expect(e.pid).toBe(CPU_PID);
  }
  // Slices say the task's comm, not a pid.
  expect(slices.every((e: { name: string }) => e.name.length > 0 && !/^\d+$/.test(e.name))).toBe(true);
  const names = doc.traceEvents.filter((e: { ph: string; name: string }) => e.ph === 'M' && e.name === 'thread_name');
  expect(names.map((e: { args: { name: string } }) => e.args.name)).toContain('CPU 0');
  await expect(page.getByTestId('export-note')).toContainText('saved intermittent8');

  // The whole trace as ftrace text: every event, one line each, the tracefs header first.
  await page.getByTestId('export-format').selectOption('ftrace');
  const [txt] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-whole').click()]);
  expect(txt.suggestedFilename()).toBe('intermittent8-linux6.12-vm16.txt.txt');
  const text = readFileSync((await txt.path())!, 'utf-8');
  expect(text).toContain('# tracer: nop');
  const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
  expect(lines.length).toBe(total);
  expect(lines.filter((l) => l.includes(' sched_switch: prev_comm=')).length).toBeGreaterThan(100);
  await expect(page.getByTestId('export-note')).toContainText('.txt');
  await page.screenshot({ path: `${artifacts}traces-export-done-1280.png` });
  expect(errors).toEqual([]);
});
