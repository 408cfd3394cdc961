// Real traces in the browser: a 6.18 capture opened locally (decoded by the C
// decoders in wasm, never uploaded), drawn as CPU lanes, zoomed; the same file
// uploaded to the server and listed with the same event count; and a trace
// whose comm is HTML stays text.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const TRACE = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const EXPECTED = JSON.parse(readFileSync(`${TRACE}.expected.json`, 'utf-8'));

/** Waits for an open trace: summary shown, lanes drawn, two animation frames. */
async function waitForTrace(page: Page) {
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('timeline-canvas')).toBeVisible();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
}

test('opens the 6.18 capture locally: lanes per CPU, zoom, the decoder count', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  let uploads = 0;
  page.on('request', (r) => { if (r.method() === 'POST') uploads++; });
  let workers = 0;
  page.on('worker', () => { workers++; });
  await page.goto('/traces');
  await expect(page.getByTestId('nav-traces')).toHaveAttribute('aria-current', 'page');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await waitForTrace(page);

  await expect(page.getByTestId('lane')).toHaveCount(EXPECTED.cpus);
  await expect(page.getByTestId('lane')).toHaveText(['CPU 0', 'CPU 1']);
  await expect(page.getByTestId('event-count')).toHaveText(EXPECTED.events.toLocaleString('en'));
  await expect(page.getByTestId('decoder-count')).toHaveText(EXPECTED.events.toLocaleString('en'));
  await expect(page.getByTestId('trace-summary')).toContainText('MEASURED');
  await expect(page.getByTestId('trace-summary')).toContainText('6.18');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'buckets');
  expect(uploads).toBe(0);
  expect(workers).toBe(1); // decoded off the main thread (engine/trace_worker.ts)
  await page.screenshot({ path: `${artifacts}traces-overview.png` });

  // Keyboard zoom: + four times about the centre gives exact slices.
  const canvas = page.getByTestId('timeline-canvas');
  await canvas.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('+');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
  // Click a lane: the cursor goes down and the details show a slice or the idle CPU.
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width / 2, y: 40 } });
  await expect(page.getByTestId('at-cursor')).toContainText('CPU');
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page.getByTestId('details')).not.toContainText('Click a slice');
  await page.waitForTimeout(100);
  await page.screenshot({ path: `${artifacts}traces-zoomed.png` });

  // Further in (about 0.4 ms across): slices wide enough to carry their task's name.
  await canvas.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('+');
  await page.waitForTimeout(100);
  await page.screenshot({ path: `${artifacts}traces-detail.png` });

  // Keyboard only: ↓ selects the slice under the cursor on the next CPU, Enter zooms to it.
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('details')).toContainText(' on CPU ');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(100);
  await page.screenshot({ path: `${artifacts}traces-slice.png` });

  // The filter dims every other task: type a comm, the matching slices stay solid.
  await page.getByTestId('filter-comm').fill('python3');
  await page.getByTestId('filter-pid').fill('25279');
  await page.waitForTimeout(100);
  await page.screenshot({ path: `${artifacts}traces-filtered.png` });
  await page.getByTestId('filter-comm').fill('');
  await page.getByTestId('filter-pid').fill('');

  // On a projector-sized window the page still fits and reads.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.waitForTimeout(150);
  await page.screenshot({ path: `${artifacts}traces-projector.png` });
  await page.setViewportSize({ width: 1600, height: 1000 });

  // Mouse-wheel zoom (d3-zoom) zooms further in.
  await canvas.hover({ position: { x: box.width / 3, y: 60 } });
  await page.mouse.wheel(0, -400);
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
  // Home shows the whole trace again: the overview.
  await canvas.focus();
  await page.keyboard.press('Home');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'buckets');
  expect(errors).toEqual([]);
});

test('uploads the capture and lists it with the same event count', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/traces');
  await page.getByTestId('upload').setInputFiles(TRACE);
  const row = page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first();
  await expect(row).toBeVisible({ timeout: 25_000 });
  await expect(row.getByTestId('trace-row-events')).toHaveText(EXPECTED.events.toLocaleString('en'));
  await page.screenshot({ path: `${artifacts}traces-library.png` });

  // Open it from the server: the same events.
  await row.getByRole('button', { name: 'Open' }).click();
  await waitForTrace(page);
  await expect(page.getByTestId('event-count')).toHaveText(EXPECTED.events.toLocaleString('en'));
  await expect(page.getByTestId('lane')).toHaveCount(EXPECTED.cpus);
  await page.screenshot({ path: `${artifacts}traces-from-server.png` });

  // Delete it again.
  await page.getByTestId('close-trace').click();
  page.once('dialog', (d) => d.accept());
  const again = page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first();
  await again.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a comm that looks like HTML stays text', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  let dialogs = 0;
  page.on('dialog', (d) => { dialogs++; void d.dismiss(); });
  const evil = '<img src=x onerror=alert(1)>';
  // tracefs text: the comm column is the task's name (up to 15 bytes as the kernel
  // keeps it, but the decoder reads whatever the file says); fields name it too.
  const comm = evil.slice(0, 15);
  const lines = [
    '# tracer: nop',
    '#',
    '# entries-in-buffer/entries-written: 3/3   #P:2',
    '#',
    '#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION',
    '#              | |         |   |||||     |         |',
    `          <idle>-0       [000] d..2.   100.000100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=${comm} next_pid=4242 next_prio=120`,
    `${comm.padStart(16)}-4242    [000] d..2.   100.000900: sched_waking: comm=${comm} pid=4243 prio=120 target_cpu=001`,
    `${comm.padStart(16)}-4242    [000] d..2.   100.001500: sched_switch: prev_comm=${comm} prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120`,
    `          <idle>-0       [001] d..2.   100.001600: bogus_event: name=${evil} value=${evil}`,
    '',
  ];
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles({ name: `${evil}.txt`, mimeType: 'text/plain', buffer: Buffer.from(lines.join('\n')) });
  await waitForTrace(page);
  await expect(page.getByTestId('event-count')).toHaveText('4');
  await expect(page.getByTestId('trace-summary')).toContainText(evil);

  const canvas = page.getByTestId('timeline-canvas');
  await canvas.focus();
  // Step through every event: the details panel shows each comm and field as text.
  for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowRight');
  await expect(page.getByTestId('details')).toContainText(evil);
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(page.getByTestId('details')).toContainText(comm);
  await page.screenshot({ path: `${artifacts}traces-untrusted-comm.png` });
  await expect(page.locator('img')).toHaveCount(0);
  expect(dialogs).toBe(0);
  expect(errors).toEqual([]);
});

test('groups lanes by node and LLC from the capture header (6.12 VM, 16 CPUs)', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  const file = new URL('../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;
  const expected = JSON.parse(readFileSync(`${file}.expected.json`, 'utf-8'));
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(file);
  await waitForTrace(page);
  await expect(page.getByTestId('event-count')).toHaveText(expected.events.toLocaleString('en'));
  await expect(page.getByTestId('lane')).toHaveCount(expected.cpus);
  await expect(page.getByTestId('lane-group').first()).toContainText('node 0 · LLC 0');
  await page.screenshot({ path: `${artifacts}traces-groups.png` });

  // Step to the first migration (type filter + Shift+→) and zoom in about it: an arrow joins the two lanes.
  await page.getByTestId('filter-type').selectOption({ label: 'sched_migrate_task' });
  const canvas = page.getByTestId('timeline-canvas');
  await canvas.focus();
  await page.keyboard.press('Shift+ArrowRight');
  await expect(page.getByTestId('details')).toContainText('sched_migrate_task');
  await expect(page.getByTestId('details')).toContainText('dest_cpu');
  // The machine at the cursor lists it among the recent migrations, with the same CPUs as the event.
  const orig = await page.getByTestId('details').locator('dt:has-text("orig_cpu") + dd').textContent();
  const dest = await page.getByTestId('details').locator('dt:has-text("dest_cpu") + dd').textContent();
  await expect(page.getByTestId('recent-migrations').locator('li').first()).toContainText(`CPU ${orig} → CPU ${dest}`);
  for (let i = 0; i < 9; i++) await page.keyboard.press('+');
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices');
  await page.waitForTimeout(100);
  await page.screenshot({ path: `${artifacts}traces-migration.png` });
  expect(errors).toEqual([]);
});

test('256 CPUs collapse to one heat row per LLC, and a group expands to its lanes', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  // A synthetic tracefs text: 256 CPUs, 16 per LLC, two nodes; each CPU runs a task for a while.
  const header = ['# tracer: nop', '#', '# entries-in-buffer/entries-written: 512/512   #P:256', '#'];
  for (let cpu = 0; cpu < 256; cpu++) {
    const first = cpu & ~15;
    header.push(`# kscope-sysfs: cpu${cpu}/cache/index3/level\t3`, `# kscope-sysfs: cpu${cpu}/cache/index3/shared_cpu_list\t${first}-${first + 15}`);
  }
  header.push('# kscope-sysfs: ../node/node0/cpulist\t0-127', '# kscope-sysfs: ../node/node1/cpulist\t128-255');
  const lines: string[] = [];
  for (let cpu = 0; cpu < 256; cpu++) {
    const c = String(cpu).padStart(3, '0');
    const pid = 1000 + cpu;
    const a = (100 + cpu * 0.0001).toFixed(6);
    const b = (100.01 + (cpu % 16) * 0.001).toFixed(6);
    lines.push(`          <idle>-0       [${c}] d..2.   ${a}: sched_switch: prev_comm=swapper/${cpu} prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=worker${cpu} next_pid=${pid} next_prio=120`);
    lines.push(`      worker${cpu}-${pid}    [${c}] d..2.   ${b}: sched_switch: prev_comm=worker${cpu} prev_pid=${pid} prev_prio=120 prev_state=S ==> next_comm=swapper/${cpu} next_pid=0 next_prio=120`);
  }
  lines.sort((x, y) => Number(/(\d+\.\d+):/.exec(x)![1]) - Number(/(\d+\.\d+):/.exec(y)![1]));
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles({ name: 'many-cpus.txt', mimeType: 'text/plain',
    buffer: Buffer.from([...header, ...lines, ''].join('\n')) });
  await waitForTrace(page);
  await expect(page.getByTestId('event-count')).toHaveText('512');
  await expect(page.getByTestId('lane-group')).toHaveCount(16);
  await expect(page.getByTestId('lane')).toHaveCount(0);
  await page.screenshot({ path: `${artifacts}traces-256-cpus.png` });
  await page.getByTestId('lane-group').nth(2).click();
  await expect(page.getByTestId('lane')).toHaveCount(16);
  await expect(page.getByTestId('lane').first()).toHaveText('CPU 32');
  await page.screenshot({ path: `${artifacts}traces-256-cpus-expanded.png` });
  expect(errors).toEqual([]);
});

test('opens a gzipped trace.dat (v7) locally: read by offset in the browser', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  const file = new URL('../../wasm-core/tests/fixtures/tracecmd_6.18_v7.dat.gz', import.meta.url).pathname;
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(file);
  await waitForTrace(page);
  // 130 events: trace-cmd report's count for this fixture (wasm-core/tests/fixtures/README.md).
  await expect(page.getByTestId('event-count')).toHaveText('130');
  await expect(page.getByTestId('trace-summary')).toContainText('trace.dat');
  await page.screenshot({ path: `${artifacts}traces-tracedat.png` });
  expect(errors).toEqual([]);
});

test('a file that is not a trace names the file and the problem', async ({ page }) => {
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles({ name: 'notes.bin', mimeType: 'application/octet-stream',
    buffer: Buffer.from([0, 1, 2, 3, 4, 5, 6, 7]) });
  await expect(page.getByTestId('error')).toContainText('notes.bin');
  await expect(page.getByTestId('error')).toContainText('not a trace format');
});
