// Stored traces on the Traces page: drawn from the server's summaries and
// windows of exact events; the machine at the cursor against the events API;
// stepping; the view in the URL reopened; two traces compared in lockstep; and
// the conformance marks and narration.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, openStored, recordConsoleErrors, traceToken as token, uploadInLibrary as upload } from './page_helper';

const THREADS4 = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const VM16 = new URL('../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;
const EXPECTED4 = JSON.parse(readFileSync(`${THREADS4}.expected.json`, 'utf-8'));


/** Zoomed in far enough, the page fetches the window's exact events: wait until they are drawn. */
async function waitForSlices(page: Page) {
  await expect(page.getByTestId('timeline').first()).toHaveAttribute('data-level', 'slices', { timeout: 15_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
}


test('a stored trace: summaries zoomed out, exact events zoomed in, the machine at the cursor matches the events API, steps, and the URL reopens the view', async ({ page, context }) => {
  const errors = recordConsoleErrors(page);
  const windowWorkers: string[] = [];
  page.on('worker', (w) => { if (w.url().includes('trace_window_worker')) windowWorkers.push(w.url()); });
  await page.goto('/traces');
  await upload(page, THREADS4);
  await openStored(page, 'threads4-linux6.18.txt');
  await expect(page.getByTestId('event-count')).toHaveText(EXPECTED4.events.toLocaleString('en'));
  await expect(page.getByTestId('loaded-window')).toContainText('summaries');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'buckets');
  const canvas = page.getByTestId('timeline-canvas');
  await canvas.focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('+');
  await waitForSlices(page);
  await expect(page.getByTestId('loaded-window')).toContainText('exact events loaded');
  expect(windowWorkers).toHaveLength(1); // fetched, decoded and indexed off the main thread

  // Put the cursor down mid-view: the machine view says who runs on each CPU.
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.45, y: 40 } });
  await expect(page).toHaveURL(/cursor=\d+/);
  const cursor = Number(new URL(page.url()).searchParams.get('cursor'));
  const id = new URL(page.url()).searchParams.get('trace')!;
  const rows = page.getByTestId('at-cursor').locator('tbody tr');
  await expect(rows).toHaveCount(EXPECTED4.cpus);

  // The events API: the last sched_switch at or before the cursor on each CPU names who runs.
  const res = await page.request.get(`/api/traces/${id}/events`, {
    params: { t1: String(cursor + 1), types: 'sched_switch', format: 'json', limit: '100000' },
    headers: { 'X-Kscope-Token': await token(page) },
  });
  expect(res.ok()).toBe(true);
  const switches: { cpu: number; next_pid: number; next_comm: string; ts_ns: number }[] = await res.json();
  for (let cpu = 0; cpu < EXPECTED4.cpus; cpu++) {
    const last = switches.filter((s) => s.cpu === cpu).at(-1)!;
    const want = last.next_pid === 0 ? 'idle' : `${last.next_comm} ${last.next_pid}`;
    await expect(rows.nth(cpu).locator('td').nth(1)).toHaveText(want);
  }
  await page.screenshot({ path: `${artifacts}traces-stored-cursor.png` });

  // Step to the next event and back: the cursor moves to each event's time, the details show it.
  await page.getByTestId('step-next').click();
  await expect(page.getByTestId('details')).toContainText('time');
  await expect(page).not.toHaveURL(new RegExp(`cursor=${cursor}(&|$)`));
  const next = Number(new URL(page.url()).searchParams.get('cursor'));
  expect(next).toBeGreaterThan(cursor);
  const after = switches.length; // the API's own next event after the cursor:
  const nextRes = await page.request.get(`/api/traces/${id}/events`, {
    params: { t0: String(cursor + 1), format: 'json', limit: '1' }, headers: { 'X-Kscope-Token': await token(page) },
  });
  const [first] = await nextRes.json();
  expect(next).toBe(first.ts_ns);
  expect(after).toBeGreaterThan(0);
  await page.getByTestId('step-back').click();
  await expect(page).toHaveURL(/cursor=\d+/);
  await expect.poll(() => Number(new URL(page.url()).searchParams.get('cursor'))).toBeLessThan(next);

  // Play moves the cursor on (1 ms of trace per second by default), pause stops it.
  const beforePlay = Number(new URL(page.url()).searchParams.get('cursor'));
  await page.getByTestId('play').click();
  await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => Number(new URL(page.url()).searchParams.get('cursor')), { timeout: 5_000 }).toBeGreaterThan(beforePlay + 200_000);
  await page.getByTestId('play').click();
  await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');

  // Filter, then reopen the URL in a new tab: the same window, cursor and filter.
  await page.getByTestId('filter-comm').fill('python3');
  await expect(page).toHaveURL(/comm=python3/);
  const url = page.url();
  const windowBefore = await page.getByTestId('timeline').getAttribute('data-window');
  const again = await context.newPage();
  const errors2 = recordConsoleErrors(again);
  await again.goto(url);
  await expect(again.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
  await expect(again.getByTestId('filter-comm')).toHaveValue('python3');
  await waitForSlices(again);
  const [a0, a1] = windowBefore!.split('-').map(Number);
  const [b0, b1] = (await again.getByTestId('timeline').getAttribute('data-window'))!.split('-').map(Number);
  expect(Math.abs(b0 - a0)).toBeLessThan((a1 - a0) * 0.002);
  expect(Math.abs(b1 - a1)).toBeLessThan((a1 - a0) * 0.002);
  await expect(again.getByTestId('at-cursor')).toContainText('At ');
  expect(new URL(again.url()).searchParams.get('cursor')).toBe(new URL(url).searchParams.get('cursor'));
  await again.screenshot({ path: `${artifacts}traces-url-reopened.png` });
  expect(errors).toEqual([]);
  expect(errors2).toEqual([]);
});

test('compare two stored traces in lockstep, with per-CPU differences', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/traces');
  await upload(page, THREADS4);
  await upload(page, VM16);
  const vm16 = JSON.parse(readFileSync(`${VM16}.expected.json`, 'utf-8'));
  await page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first().getByTestId('compare-pick').check();
  await page.getByTestId('trace-row').filter({ hasText: 'intermittent8-linux6.12-vm16.txt' }).first().getByTestId('compare-pick').check();
  await page.getByTestId('compare-open').click();
  await expect(page.getByTestId('compare-side-A')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('compare-side-B')).toBeVisible();
  await expect(page).toHaveURL(/trace=[0-9a-f]+&vs=[0-9a-f]+/);
  // Every CPU either trace has, and totals that are the traces' own switch counts.
  await expect(page.getByTestId('compare-row')).toHaveCount(Math.max(EXPECTED4.cpus, vm16.cpus));
  const total = page.getByTestId('compare-total').locator('td');
  await expect(total.nth(3)).toHaveText(EXPECTED4.by_type.sched_switch.toLocaleString('en'));
  await expect(total.nth(4)).toHaveText(vm16.by_type.sched_switch.toLocaleString('en'));
  await expect(page.getByTestId('compare-table')).toContainText(' ms');

  // Lockstep: zooming one zooms both, over the same time since each trace's start.
  const sides = page.getByTestId('timeline');
  const span = async (k: number) => {
    const [a, b] = (await sides.nth(k).getAttribute('data-window'))!.split('-').map(Number);
    return b - a;
  };
  const before = await span(0);
  // The cursor near the start (both traces have events there), then zoom about it.
  const first = page.getByTestId('timeline-canvas').first();
  const fb = (await first.boundingBox())!;
  await first.click({ position: { x: fb.width * 0.06, y: 30 } });
  await page.getByTestId('timeline-canvas').first().focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('+');
  await expect.poll(() => span(0)).toBeLessThan(before / 4);
  expect(Math.abs((await span(1)) - (await span(0)))).toBeLessThanOrEqual(2);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${artifacts}traces-compare.png` });

  // The URL holds both traces and the shared window (ns since their starts): a new tab shows the same.
  await expect(page).toHaveURL(/vs=[0-9a-f]+&from=\d+&to=\d+/);
  const windowA = await sides.nth(0).getAttribute('data-window');
  const again = await page.context().newPage();
  await again.goto(page.url());
  await expect(again.getByTestId('compare-side-B')).toBeVisible({ timeout: 20_000 });
  const [a0, a1] = windowA!.split('-').map(Number);
  await expect.poll(async () => {
    const [b0, b1] = (await again.getByTestId('timeline').first().getAttribute('data-window'))!.split('-').map(Number);
    return Math.max(Math.abs(b0 - a0), Math.abs(b1 - a1)) / (a1 - a0);
  }).toBeLessThan(0.002);
  await again.close();
  expect(errors).toEqual([]);
});

test('480 CPUs stored (hcc-2s-480-like: 2 nodes, one 240-CPU LLC each): blocks of 16 as heat rows, one drilled into', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  // The capture header first (as kscope capture writes it), so the server keeps the topology.
  const header: string[] = [];
  for (let cpu = 0; cpu < 480; cpu++) {
    const half = cpu % 240 < 120 ? 0 : 1;
    header.push(`# kscope-sysfs: cpu${cpu}/cache/index3/level\t3`,
      `# kscope-sysfs: cpu${cpu}/cache/index3/shared_cpu_list\t${half ? '120-239,360-479' : '0-119,240-359'}`);
  }
  header.push('# kscope-sysfs: ../node/node0/cpulist\t0-119,240-359', '# kscope-sysfs: ../node/node1/cpulist\t120-239,360-479',
    '# tracer: nop', '#', '# entries-in-buffer/entries-written: 960/960   #P:480', '#');
  const lines: { t: number; text: string }[] = [];
  for (let cpu = 0; cpu < 480; cpu++) {
    const c = String(cpu).padStart(3, '0');
    const a = 100 + cpu * 0.00001;
    const b = 100.02 + (cpu % 16) * 0.001;
    lines.push({ t: a, text: `          <idle>-0       [${c}] d..2.   ${a.toFixed(6)}: sched_switch: prev_comm=swapper/${cpu} prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w${cpu} next_pid=${2000 + cpu} next_prio=120` });
    lines.push({ t: b, text: `          w${cpu}-${2000 + cpu}    [${c}] d..2.   ${b.toFixed(6)}: sched_switch: prev_comm=w${cpu} prev_pid=${2000 + cpu} prev_prio=120 prev_state=S ==> next_comm=swapper/${cpu} next_pid=0 next_prio=120` });
  }
  lines.sort((x, y) => x.t - y.t);
  await page.goto('/traces');
  await page.getByTestId('upload').setInputFiles({ name: 'hcc-480.txt', mimeType: 'text/plain',
    buffer: Buffer.from([...header, ...lines.map((l) => l.text), ''].join('\n')) });
  await expect(page.getByTestId('trace-row').filter({ hasText: 'hcc-480.txt' }).first()).toBeVisible({ timeout: 25_000 });
  await openStored(page, 'hcc-480.txt');
  await expect(page.getByTestId('event-count')).toHaveText('960');
  await expect(page.getByTestId('lane-group')).toHaveCount(30);
  await expect(page.getByTestId('lane')).toHaveCount(0);
  await expect(page.getByTestId('lane-group').first()).toContainText('node 0 · LLC 0 · CPUs 0–15');
  await page.waitForTimeout(200);
  await page.screenshot({ path: `${artifacts}traces-480-stored.png` });
  await page.getByTestId('lane-group').nth(7).click();
  await expect(page.getByTestId('lane')).toHaveCount(16);
  await expect(page.getByTestId('lane').first()).toHaveText('CPU 112');
  await expect(page.getByTestId('lane').nth(8)).toHaveText('CPU 240');
  await page.waitForTimeout(200);
  await page.screenshot({ path: `${artifacts}traces-480-stored-expanded.png` });
  expect(errors).toEqual([]);
});
