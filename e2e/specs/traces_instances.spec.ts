// A trace.dat whose events are in a tracefs instance buffer beside the top one
// (`trace-cmd extract -B ksgold -t`, traces/workloads/instance_traces.sh), opened locally:
// every buffer decoded in the page's worker, the counts trace-cmd report gives, and the
// buffers named with their records in the summary.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const TOP = new URL('../../traces/sleep-top-instance-linux6.18.v7-zstd.dat', import.meta.url).pathname;
const ALONE = new URL('../../traces/sleep-instance-linux6.18.v6.dat', import.meta.url).pathname;

for (const [what, trace] of [['beside the top buffer (v7, zstd)', TOP], ['alone (v6)', ALONE]] as const) {
  test(`opens a trace.dat with an instance buffer ${what} locally`, async ({ page }) => {
    const expected = JSON.parse(readFileSync(`${trace}.expected.json`, 'utf-8'));
    const errors = recordConsoleErrors(page);
    let uploads = 0;
    page.on('request', (r) => { if (r.method() === 'POST') uploads++; });
    await page.goto('/traces');
    await page.getByTestId('open-local').setInputFiles(trace);
    await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('event-count')).toHaveText(expected.events.toLocaleString('en'));
    await expect(page.getByTestId('decoder-count')).toHaveText(expected.events.toLocaleString('en'));
    const buffers = Object.entries(expected.by_buffer as Record<string, number>)
      .map(([name, n]) => `${name || 'top'} ${n}`).join(', ');
    await expect(page.getByTestId('trace-buffers')).toHaveText(` · trace buffers: ${buffers}`);
    await expect(page.getByTestId('lane')).toHaveText(['CPU 0', 'CPU 1']);
    const canvas = await page.getByTestId('timeline-canvas').boundingBox();
    expect(canvas && canvas.height).toBeGreaterThan(50);
    expect(uploads).toBe(0);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
    await page.screenshot({ path: `${artifacts}traces-tracedat-instance-${trace === TOP ? 'top' : 'alone'}.png` });
    expect(errors).toEqual([]);
  });
}
