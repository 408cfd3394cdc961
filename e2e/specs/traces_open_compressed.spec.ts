// "Open locally" with compressed traces (issue 13 item 8): gzip, xz, zstd and zip are
// decompressed in the browser (frontend/src/engine/decompress.ts) under the server's limits,
// then decoded by the C decoders; never uploaded. A decompression bomb is refused with the
// file, the offset and the reason.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const traces = (rel: string) => new URL(`../../traces/${rel}`, import.meta.url).pathname;
const expected = (rel: string) => JSON.parse(readFileSync(traces(rel), 'utf-8'));
const TEXT = 'threads4-linux6.18.txt';

async function openLocal(page: Page, file: string | { name: string; mimeType: string; buffer: Buffer }) {
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(file);
}

test('the pickers offer compressed files', async ({ page }) => {
  await page.goto('/traces');
  for (const id of ['open-local', 'upload']) {
    const accept = (await page.getByTestId(id).getAttribute('accept'))!.split(',');
    for (const ext of ['.gz', '.xz', '.zst', '.zip', '.dat', '.txt']) expect(accept, `${id} accepts ${ext}`).toContain(ext);
  }
});

const CASES = [
  { what: 'xz (trace.dat)', file: 'threads4-linux6.18.dat.xz', exp: 'threads4-linux6.18.dat.expected.json', format: 'trace.dat' },
  { what: 'xz (text)', file: 'intermittent2-pinned-10ms-linux6.18.txt.xz', exp: 'intermittent2-pinned-10ms-linux6.18.txt.expected.json', format: 'ftrace' },
  { what: 'zstd (two frames)', file: 'compressed/threads4-linux6.18.txt.zst', exp: `${TEXT}.expected.json`, format: 'ftrace' },
  { what: 'zip', file: 'compressed/threads4-linux6.18.txt.zip', exp: `${TEXT}.expected.json`, format: 'ftrace' },
];

for (const c of CASES) {
  test(`opens ${c.what} locally with the expected count`, async ({ page }) => {
    const errors = recordConsoleErrors(page);
    let posts = 0;
    page.on('request', (r) => { if (r.method() === 'POST') posts++; });
    await openLocal(page, traces(c.file));
    await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 30_000 });
    const n = expected(c.exp).events.toLocaleString('en');
    await expect(page.getByTestId('event-count')).toHaveText(n);
    await expect(page.getByTestId('decoder-count')).toHaveText(n);
    await expect(page.getByTestId('trace-summary')).toContainText(c.format);
    await expect(page.getByTestId('timeline-canvas')).toBeVisible();
    expect(posts).toBe(0);
    await page.screenshot({ path: `${artifacts}traces-open-local-${c.file.split('/').pop()}.png` });
    expect(errors).toEqual([]);
  });
}

test('opens gzip locally with the plain file\'s count', async ({ page }) => {
  const buffer = gzipSync(readFileSync(traces(TEXT)));
  await openLocal(page, { name: `${TEXT}.gz`, mimeType: 'application/gzip', buffer });
  await expect(page.getByTestId('event-count')).toHaveText(expected(`${TEXT}.expected.json`).events.toLocaleString('en'),
    { timeout: 30_000 });
});

test('a decompression bomb is refused with the file, the offset and why', async ({ page }) => {
  await openLocal(page, traces('compressed/zeros-64MiB.xz'));
  const error = page.getByTestId('error');
  await expect(error).toBeVisible({ timeout: 30_000 });
  await expect(error).toContainText('Could not open zeros-64MiB.xz');
  await expect(error).toContainText(/zeros-64MiB\.xz: offset \d+ xz data expands more than 500x \(a decompression bomb\?\)/);
  await page.screenshot({ path: `${artifacts}traces-open-local-bomb.png` });
  // The page still works: a good file opens next.
  await page.getByTestId('open-local').setInputFiles(traces('compressed/threads4-linux6.18.txt.zst'));
  await expect(page.getByTestId('event-count')).toHaveText(expected(`${TEXT}.expected.json`).events.toLocaleString('en'),
    { timeout: 30_000 });
});
