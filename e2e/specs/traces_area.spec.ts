// Area selection and markers on the shipped 6.18 capture: Shift+drag across the CPU lanes
// gives the area's aggregates (its switch and migration counts checked against the trace's
// text), m / Shift+M put markers A and B down with their delta, `a` makes the area between
// them; on a stored trace both go in the URL and a reload restores them. The canvas shows
// them (its pixels change); 18 px text at 1280x720.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, openStored, recordConsoleErrors, twoFrames, uploadInLibrary } from './page_helper';
import { textSizes, under } from './text_size';

const TRACE = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const TEXT = readFileSync(TRACE, 'utf-8');
/** Independent reading of the text: [ts_ns, cpu, event, fields]. */
const LINES = TEXT.split('\n').flatMap((l) => {
  const m = /^\s*(.+?)-(\d+)\s+\(\s*[-\d]+\)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$/.exec(l);
  return m ? [{ ts: Number(m[4]) * 1e9 + Number(m[5].padEnd(9, '0')), cpu: Number(m[3]), event: m[6], fields: m[7] }] : [];
});

function areaOf(attr: string | null) {
  const m = /^(\d+)-(\d+):([\d,]+)$/.exec(attr ?? '')!;
  return { start: Number(m[1]), end: Number(m[2]), cpus: m[3].split(',').map(Number) };
}

async function dragArea(page: Page, fx0: number, fx1: number) {
  const canvas = page.getByTestId('timeline-canvas');
  const box = (await canvas.boundingBox())!;
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + box.width * fx0, box.y + 30);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((fx0 + fx1) / 2), box.y + box.height * 0.5, { steps: 4 });
  await page.mouse.move(box.x + box.width * fx1, box.y + box.height - 40, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
}

test('Shift+drag an area: busy time, switches and migrations for it; markers A, B and their delta', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await twoFrames(page);
  const canvas = page.getByTestId('timeline-canvas');
  const before = await canvas.screenshot();

  await dragArea(page, 0.3, 0.7);
  const timeline = page.getByTestId('timeline');
  await expect(timeline).toHaveAttribute('data-area', /^\d+-\d+:0,1$/);
  const area = areaOf(await timeline.getAttribute('data-area'));
  const panel = page.getByTestId('area');
  await expect(panel.getByTestId('area-aggregates')).toBeVisible();
  // The text's own counts in the area: sched_switch lines on its CPUs, sched_migrate_task from or to them.
  const inArea = LINES.filter((l) => l.ts >= area.start && l.ts < area.end);
  const switches = inArea.filter((l) => l.event === 'sched_switch' && area.cpus.includes(l.cpu)).length;
  const migrations = inArea.filter((l) => l.event === 'sched_migrate_task').length;
  expect(switches).toBeGreaterThan(10);
  await expect(panel.getByTestId('area-switches')).toContainText(`${switches} (`);
  // One LLC on this 2-CPU machine: every migration stays within it.
  await expect(panel.getByTestId('area-migrations')).toContainText(`${migrations} within LLC · 0 across LLC · 0 across node`);
  await expect(panel.getByTestId('area-cpus').locator('tbody tr')).toHaveCount(2);
  await expect(panel.getByTestId('area-tasks').locator('tbody tr').first()).toContainText('python3');
  await twoFrames(page);
  const withArea = await canvas.screenshot();
  expect(withArea.equals(before)).toBe(false);
  await page.screenshot({ path: `${artifacts}area-selected-1280.png` });
  await panel.scrollIntoViewIfNeeded();
  expect(under(await textSizes(page, '[data-testid="area"]'), 18)).toEqual([]);

  // Markers by keyboard: cursor at 40%, m; cursor at 60%, Shift+M: A, B and Δ.
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.4, y: 30 } });
  await canvas.press('m');
  await canvas.click({ position: { x: box.width * 0.6, y: 30 } });
  await canvas.press('Shift+M');
  const marks = page.getByTestId('markers');
  await expect(marks.getByTestId('marker-delta')).toBeVisible();
  const [a, b] = (await marks.locator('span').allTextContents()).map((t) => Number(/([\d.]+) ms/.exec(t)![1]));
  const delta = (await marks.getByTestId('marker-delta').textContent())!;
  const d = /Δ ([\d.]+) (ms|µs)/.exec(delta)!;
  expect(Math.abs(Number(d[1]) * (d[2] === 'ms' ? 1 : 1e-3) - (b - a))).toBeLessThan(0.002);
  // `a`: the area between the markers, every CPU.
  await canvas.press('a');
  const between = areaOf(await timeline.getAttribute('data-area'));
  expect(between.cpus).toEqual([0, 1]);
  expect(Math.abs((between.end - between.start) / 1e6 - (b - a))).toBeLessThan(0.002);
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}area-markers-1280.png` });
  // The latency panel can cover the selected area.
  await page.getByTestId('latency-scope').selectOption({ label: 'the selected area' });
  await expect(page.getByTestId('latency')).toContainText('In the selected area');
  await page.getByTestId('area-clear').click();
  await expect(timeline).not.toHaveAttribute('data-area', /./);
  expect(errors).toEqual([]);
});

test('a stored trace keeps the area and the markers in its URL', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/traces');
  await uploadInLibrary(page, TRACE);
  await openStored(page, 'threads4-linux6.18.txt');
  const canvas = page.getByTestId('timeline-canvas');
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.25, y: 30 } });
  await canvas.press('m');
  await canvas.click({ position: { x: box.width * 0.5, y: 30 } });
  await canvas.press('Shift+M');
  await dragArea(page, 0.55, 0.8);
  await expect(page).toHaveURL(/area=\d+-\d+%3A0-1/);
  await expect(page).toHaveURL(/marks=\d+%2C\d+/);
  const url = page.url();
  const area = await page.getByTestId('timeline').getAttribute('data-area');
  const span = await page.getByTestId('area-span').textContent();
  const delta = await page.getByTestId('marker-delta').textContent();
  // A fresh page from the link: the same area and markers.
  await page.goto(url);
  await expect(page.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-area', area!);
  await expect(page.getByTestId('area-span')).toHaveText(span!);
  await expect(page.getByTestId('marker-delta')).toHaveText(delta!);
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}area-from-url.png` });
  // Zoomed out, a stored trace holds no exact events for the area: the panel says so, never zeros.
  await expect(page.getByTestId('area-not-loaded')).toBeVisible();
  await expect(page.getByTestId('area-aggregates')).toHaveCount(0);
  // Clean up the stored trace.
  await page.getByTestId('close-trace').click();
  page.once('dialog', (dl) => dl.accept());
  await page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first().getByRole('button', { name: 'Delete' }).click();
  expect(errors).toEqual([]);
});
