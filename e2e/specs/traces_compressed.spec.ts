// A zstd-compressed trace.dat v7 (trace-cmd's default) opened locally in Chromium: read
// by offset and decompressed chunk by chunk by the C decoder in the page's worker
// (engine/trace_worker.ts), never uploaded; its count is trace-cmd report's.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const TRACE = new URL('../../traces/threads4-linux6.18.v7-zstd.dat', import.meta.url).pathname;
const EXPECTED = JSON.parse(readFileSync(`${TRACE}.expected.json`, 'utf-8'));

test('opens a zstd-compressed trace.dat v7 locally, in the worker', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  let uploads = 0;
  page.on('request', (r) => { if (r.method() === 'POST') uploads++; });
  let workers = 0;
  page.on('worker', () => { workers++; });
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('timeline-canvas')).toBeVisible();
  await expect(page.getByTestId('event-count')).toHaveText(EXPECTED.events.toLocaleString('en'));
  await expect(page.getByTestId('decoder-count')).toHaveText(EXPECTED.events.toLocaleString('en'));
  await expect(page.getByTestId('trace-summary')).toContainText('trace.dat');
  await expect(page.getByTestId('lane')).toHaveText(['CPU 0', 'CPU 1']);
  expect(uploads).toBe(0);
  expect(workers).toBe(1);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
  await page.screenshot({ path: `${artifacts}traces-tracedat-zstd.png` });
  expect(errors).toEqual([]);
});

test('a damaged zstd chunk names the file, the offset and the chunk', async ({ page }) => {
  const data = readFileSync(TRACE);
  // CPU 0's block starts at 0x22000 in this file (trace-cmd's report: "CPU0 data recorded at
  // offset=0x22000"): u32 chunk count, then chunk 0's { csize, usize } and zstd frame.
  const block = 0x22000;
  expect(data.readUInt32LE(block)).toBe(6);
  data[block + 4 + 8] ^= 1; // chunk 0's zstd magic
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles({ name: 'damaged.dat', mimeType: 'application/octet-stream', buffer: data });
  const error = page.getByTestId('error');
  await expect(error).toContainText('damaged.dat');
  await expect(error).toContainText(`offset ${block + 12} (flyrecord data)`);
  await expect(error).toContainText("CPU 0's zstd-compressed data, chunk 0");
  await page.screenshot({ path: `${artifacts}traces-tracedat-zstd-damaged.png` });
});
