// The Traces library at 1280x720 and 1920x1080 (issue 13 item 10): every row's Open and Delete are inside
// the viewport and not covered, a long file name is one line cut with an ellipsis (the full
// name on hover) instead of a letter a line, and two uploads of one name differ by their
// upload time, size and id.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts } from './page_helper';

const THREADS4 = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const LONG = 'intermittent8-linux6.12-kscope-recent-vm16-with-a-really-long-capture-name-from-a-ci-job-2026-11-27.txt';


async function upload(page: Page, file: Parameters<Page['setInputFiles']>[1], rows: number) {
  await page.getByTestId('upload').setInputFiles(file);
  await expect(page.getByTestId('trace-row')).toHaveCount(rows, { timeout: 25_000 });
}

for (const [vw, vh] of [[1280, 720], [1920, 1080]]) test.describe(`${vw}x${vh}`, () => {
test.use({ viewport: { width: vw, height: vh } });

test(`at ${vw}x${vh} the actions stay in view, names are cut not wrapped, and same-name uploads differ`, async ({ page }) => {
  await page.goto('/traces');
  // A browser of its own: a fresh owner token, so only these uploads are listed.
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await upload(page, THREADS4, 1);
  await upload(page, THREADS4, 2);
  await upload(page, { name: LONG, mimeType: 'text/plain', buffer: readFileSync(THREADS4) }, 3);

  const rows = page.getByTestId('trace-row');
  // The list's panel: its buttons must be inside it, not clipped at its edge.
  const panel = (await page.locator('.library-list').boundingBox())!;
  for (let i = 0; i < 3; i++) {
    const row = rows.nth(i);
    for (const id of ['trace-row-open', 'trace-row-delete']) {
      const button = row.getByTestId(id);
      await button.scrollIntoViewIfNeeded();
      const b = (await button.boundingBox())!;
      expect(b.width, `${id} of row ${i} has a size`).toBeGreaterThan(40);
      expect(b.x, `${id} of row ${i} starts inside`).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width, `${id} of row ${i} ends inside the viewport`).toBeLessThanOrEqual(vw);
      expect(b.y + b.height).toBeLessThanOrEqual(vh);
      expect(b.x + b.width, `${id} of row ${i} ends inside the list's panel`).toBeLessThanOrEqual(panel.x + panel.width);
      // Nothing covers it: the element at its centre is the button (or its text).
      const hit = await page.evaluate(([x, y]) => {
        const el = document.elementFromPoint(x, y);
        return el?.closest('button')?.getAttribute('data-testid') ?? el?.tagName ?? null;
      }, [b.x + b.width / 2, b.y + b.height / 2]);
      expect(hit).toBe(id);
    }
    const name = row.getByTestId('trace-row-name');
    const n = (await name.boundingBox())!;
    expect(n.width, `row ${i}: the name is not squeezed to a letter a line`).toBeGreaterThan(150);
    expect(n.height, `row ${i}: the name is one line`).toBeLessThan(30);
  }
  // Neither the page nor the library scrolls sideways (nothing is hidden off to the right).
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(vw);
  expect(await page.locator('.library').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  expect(await page.locator('.library-list').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);

  // The long name: cut with an ellipsis, the whole name on hover.
  const long = rows.filter({ hasText: 'intermittent8' }).getByTestId('trace-row-name');
  await expect(long).toHaveAttribute('title', LONG);
  expect(await long.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  expect(await long.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');

  // Two uploads of one name: told apart by upload time, size and id.
  const same = rows.filter({ hasText: 'threads4-linux6.18.txt' });
  await expect(same).toHaveCount(2);
  const labels = await same.getByTestId('trace-row-upload').allTextContents();
  for (const l of labels) expect(l).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d · 811 KiB · #[0-9a-f]{6}$/);
  // ... and the whole label is shown, not cut.
  for (const over of await same.getByTestId('trace-row-upload').evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth))) {
    expect(over).toBeLessThanOrEqual(0);
  }
  expect(labels[0]).not.toBe(labels[1]);

  await page.screenshot({ path: `${artifacts}traces-library-${vw}x${vh}.png` });
});
});
