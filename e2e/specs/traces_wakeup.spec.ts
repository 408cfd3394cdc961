// "Who woke this task and how long did it wait", in two clicks, on the shipped 6.18
// capture opened locally: the latency histograms of the window, a click on the longest
// wait selects its slice and shows the wait, the wakeup panel names the waker and the
// latency (checked against the trace's own text), and the timeline draws the arrows
// (the canvas changes when they go). At 1280x720 every panel text is 18 px or more;
// keyboard only works too.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, inspectPicture, recordConsoleErrors, twoFrames } from './page_helper';
import { textSizes, under } from './text_size';

const TRACE = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const TEXT = readFileSync(TRACE, 'utf-8');

async function openTrace(page: Page) {
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('timeline-canvas')).toBeVisible();
  await twoFrames(page);
}

/** "12.345 ms" since the trace's first event -> absolute seconds text as the trace prints it is not needed: ns. */
function firstEventNs(): number {
  const m = /\s(\d+)\.(\d+):/.exec(TEXT.split('\n').find((l) => l && !l.startsWith('#'))!)!;
  return Number(m[1]) * 1e9 + Number(m[2].padEnd(9, '0'));
}

test('two clicks: the longest wait, who woke the task, and the arrows', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await openTrace(page);

  // The whole trace's latency per task: rows with a histogram each.
  const latency = page.getByTestId('latency');
  await expect(latency.getByTestId('latency-row').first()).toBeVisible();
  const rows = await latency.getByTestId('latency-row').count();
  expect(rows).toBeGreaterThan(1);
  await latency.scrollIntoViewIfNeeded();
  const hist = await inspectPicture(page, '[data-testid="latency"] .latency-hist', { minWidth: 200, minHeight: 50, save: 'wakeup-histogram.png' });
  expect(hist.problems).toEqual([]);
  await page.screenshot({ path: `${artifacts}wakeup-latency-panel.png` });

  // Click 1: the first row's longest wait. Its slice is selected, the view zooms to the wait.
  await latency.getByTestId('latency-worst').first().click();
  const wake = page.getByTestId('wakeup');
  await expect(wake).toBeVisible();
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
  await expect(page.getByTestId('timeline')).not.toHaveAttribute('data-flows', '0');
  const waker = (await wake.getByTestId('wakeup-waker').textContent())!;
  const latencyText = (await wake.getByTestId('wakeup-latency').textContent())!;
  expect(waker).toMatch(/ on CPU \d|interrupt|preempted/);
  expect(latencyText).toMatch(/\d (ns|µs|ms)/);
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}wakeup-two-clicks.png` });

  // The panel's figures are the trace's: the switch-in time and the waking's, read from the text.
  const selected = page.getByTestId('details');
  await expect(selected).toContainText('Run slice on CPU');
  const comm = (await selected.getByTestId('detail-comm').textContent())!;
  expect(comm.length).toBeGreaterThan(0);

  // The arrows are on the canvas: the lanes' pixels change when the selection (and its flows) goes.
  const canvas = page.getByTestId('timeline-canvas');
  const picture = await inspectPicture(page, '[data-testid="timeline-canvas"]', { save: 'wakeup-arrows.png' });
  expect(picture.problems).toEqual([]);
  const withArrows = await canvas.screenshot();
  await canvas.focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-flows', '0');
  await twoFrames(page);
  const without = await canvas.screenshot();
  expect(withArrows.equals(without)).toBe(false);

  // Presenter size: the panels' text is 18 px or more at 1280x720.
  await latency.getByTestId('latency-worst').first().click();
  await expect(wake).toBeVisible();
  expect(under(await textSizes(page, '[data-testid="wakeup"]'), 18)).toEqual([]);
  await latency.scrollIntoViewIfNeeded();
  expect(under(await textSizes(page, '[data-testid="latency"]'), 18)).toEqual([]);
  expect(errors).toEqual([]);
});

test('a woken slice names its waker and waking → running latency, as the text says', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await openTrace(page);
  // Per CPU, woken waits only: pick CPU 1's longest.
  const latency = page.getByTestId('latency');
  await latency.getByTestId('latency-by-cpu').check();
  await expect(latency.getByTestId('latency-row').first()).toContainText('CPU');
  const row = latency.getByTestId('latency-row').filter({ hasText: 'CPU 1' });
  await row.getByTestId('latency-worst').click();
  const wake = page.getByTestId('wakeup');
  await expect(wake.getByTestId('wakeup-waker')).toContainText('on CPU');
  // Independent check: the woken task's last sched_waking before its switch-in, from the text.
  const comm = (await page.getByTestId('details').getByTestId('detail-comm').textContent())!.trim();
  const pid = Number((await page.getByTestId('details').locator('dt:has-text("pid (tid)") + dd').textContent())!.trim());
  const startMs = Number(/([\d.]+) ms/.exec((await page.getByTestId('details').locator('dt:has-text("start") + dd').textContent())!)![1]);
  const t0 = firstEventNs();
  const runAt = t0 + Math.round(startMs * 1e6);
  let waking: { ts: number; comm: string; pid: number; cpu: number } | null = null;
  for (const l of TEXT.split('\n')) {
    const m = /^\s*(.+?)-(\d+)\s+\(\s*[-\d]+\)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): sched_waking: .* pid=(\d+) /.exec(l);
    if (!m || Number(m[6]) !== pid) continue;
    const ts = Number(m[4]) * 1e9 + Number(m[5].padEnd(9, '0'));
    if (ts <= runAt + 1000) waking = { ts, comm: m[1], pid: Number(m[2]), cpu: Number(m[3]) };
  }
  expect(waking, `a sched_waking of ${comm} ${pid}`).not.toBeNull();
  const w = waking!;
  await expect(wake.getByTestId('wakeup-waker')).toHaveText(w.pid === 0 ? `an interrupt on CPU ${w.cpu} (the idle task was current)` : `${w.comm} ${w.pid} on CPU ${w.cpu}`);
  const us = (runAt - w.ts) / 1e3;
  const shown = (await wake.getByTestId('wakeup-latency').textContent())!;
  const m = /([\d.]+) (ns|µs|ms)/.exec(shown)!;
  const shownUs = Number(m[1]) * (m[2] === 'ns' ? 1e-3 : m[2] === 'ms' ? 1e3 : 1);
  expect(Math.abs(shownUs - us)).toBeLessThan(1.01); // the start is shown to the µs
  await expect(wake.getByTestId('wakeup-end')).not.toBeEmpty();
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}wakeup-by-cpu.png` });
  expect(errors).toEqual([]);
});

test('keyboard only: pick the longest wait, show it, step to the waker', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await openTrace(page);
  // The latency panel's controls answer the keyboard: per CPU by an arrow key on the radio group.
  await page.getByTestId('latency-by-task').focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('latency-by-cpu')).toBeChecked();
  await page.getByTestId('latency-by-cpu').press('ArrowUp');
  await expect(page.getByTestId('latency-by-task')).toBeChecked();
  // Over the whole trace (the rows stay put while the view zooms to each pick).
  await page.getByTestId('latency-scope').selectOption({ label: 'the whole trace' });
  // Enter on a row's longest wait selects it and zooms to it; the first row whose waker is a task
  // (not an interrupt) offers "Select the waker's slice".
  const wake = page.getByTestId('wakeup');
  const toWaker = wake.getByTestId('wakeup-select-waker');
  const worst = page.getByTestId('latency-worst');
  const rows = await worst.count();
  for (let k = 0; k < rows; k++) {
    await worst.nth(k).focus();
    await page.keyboard.press('Enter');
    await expect(wake).toBeVisible();
    await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
    if (await toWaker.count()) break;
  }
  await expect(toWaker).toBeVisible();
  const waker = (await wake.getByTestId('wakeup-waker').textContent())!;
  await toWaker.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('details').getByTestId('detail-comm')).toHaveText(waker.replace(/ \d+ on CPU \d+$/, ''));
  // Back on the canvas: Esc clears the selection and its arrows.
  await page.getByTestId('timeline-canvas').focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-flows', '0');
  expect(errors).toEqual([]);
});
