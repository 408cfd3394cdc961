// Share links (issue 13 items 13 and 14): the owner makes a read-only link to a stored trace
// at its current view; a fresh browser (no owner token) opens it at the same window and
// cursor, read-only; after the owner revokes it, that browser gets the private-trace message.
// Without a link, another browser gets the same message. A compare view's link carries both
// traces' tokens and opens the pair.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors, uploadInLibrary as upload } from './page_helper';

const THREADS4 = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const VM16 = new URL('../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;
const EXPECTED4 = JSON.parse(readFileSync(`${THREADS4}.expected.json`, 'utf-8'));


const params = (url: string) => new URL(url).searchParams;

async function makeLink(page: Page): Promise<string> {
  await page.getByTestId('share-open').click();
  await page.getByTestId('share-create').click();
  const link = page.getByTestId('share-link');
  await expect(link).toHaveValue(/share=/);
  return (await link.inputValue());
}

test('the owner shares a trace at its view; a fresh browser opens it read-only; revoked, it is private again', async ({ page, browser }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/traces');
  await upload(page, THREADS4);
  await page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first().getByTestId('trace-row-open').click();
  const canvas = page.getByTestId('timeline-canvas');
  await expect(canvas).toBeVisible({ timeout: 20_000 });
  await canvas.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('+');
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.4, y: 40 } });
  await expect(page).toHaveURL(/cursor=\d+/);
  await expect(page).toHaveURL(/from=\d+&to=\d+/);
  const own = page.url();
  const id = params(own).get('trace')!;

  const link = await makeLink(page);
  expect(params(link).get('trace')).toBe(id);
  for (const k of ['from', 'to', 'cursor']) expect(params(link).get(k), k).toBe(params(own).get(k));
  await page.screenshot({ path: `${artifacts}traces-share-owner.png` });

  // A fresh browser: no owner token, only the link.
  const other = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const reader = await other.newPage();
  const readerErrors = recordConsoleErrors(reader);
  // Without the link's token: the private-trace message, which says how to share.
  await reader.goto(`/traces?trace=${id}`);
  const privateNote = reader.getByTestId('private-trace');
  await expect(privateNote).toBeVisible({ timeout: 15_000 });
  await expect(privateNote).toContainText('private to the browser that uploaded them');
  await expect(privateNote).toContainText('Share…');
  await expect(privateNote).toContainText(`kscope share create ${id}`);
  await reader.screenshot({ path: `${artifacts}traces-share-private.png` });

  await reader.goto(link);
  await expect(reader.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
  await expect(reader.getByTestId('event-count')).toHaveText(EXPECTED4.events.toLocaleString('en'));
  await expect(reader.getByTestId('share-reader')).toBeVisible();
  await expect(reader.getByTestId('share-open')).toHaveCount(0);
  // The same view: window and cursor as the owner's.
  const ownWindow = await page.getByTestId('timeline').first().getAttribute('data-window');
  await expect(reader.getByTestId('timeline').first()).toHaveAttribute('data-window', ownWindow!, { timeout: 10_000 });
  await expect.poll(() => params(reader.url()).get('cursor')).toBe(params(own).get('cursor'));
  expect(params(reader.url()).get('share')).toBe(params(link).get('share'));
  await reader.screenshot({ path: `${artifacts}traces-share-reader.png` });
  // Read-only: the share token deletes nothing, and the reader's library lists nothing.
  const share = params(link).get('share')!;
  const del = await reader.request.delete(`/api/traces/${id}`, { headers: { 'X-Kscope-Share': share } });
  expect(del.status()).toBe(404);
  expect((await reader.request.get(`/api/traces/${id}`, { headers: { 'X-Kscope-Share': share } })).status()).toBe(200);

  // The owner revokes: the reader's next load gets the private-trace message.
  await page.getByTestId('share-revoke').click();
  await expect(page.getByTestId('share-create')).toBeVisible();
  await reader.reload();
  await expect(reader.getByTestId('private-trace')).toBeVisible({ timeout: 15_000 });
  await expect(reader.getByTestId('private-trace')).toContainText('revoked');
  await expect(reader.getByTestId('private-trace')).toContainText('private to the browser that uploaded them');
  await reader.screenshot({ path: `${artifacts}traces-share-revoked.png` });
  await other.close();
  expect(errors).toEqual([]);
  // The reader's console has the 404s of the private trace and nothing else.
  expect(readerErrors.filter((e) => !e.includes('404'))).toEqual([]);
});

test('a compare view\'s share link opens both traces, at the same window and cursor, for a fresh browser', async ({ page, browser }) => {
  await page.goto('/traces');
  await upload(page, THREADS4);
  await upload(page, VM16);
  await page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first().getByTestId('compare-pick').check();
  await page.getByTestId('trace-row').filter({ hasText: 'intermittent8-linux6.12-vm16.txt' }).first().getByTestId('compare-pick').check();
  await page.getByTestId('compare-open').click();
  await expect(page.getByTestId('compare-side-B')).toBeVisible({ timeout: 20_000 });
  // A view of the pair: the cursor near the start, zoomed about it.
  const first = page.getByTestId('timeline-canvas').first();
  const fb = (await first.boundingBox())!;
  await first.click({ position: { x: fb.width * 0.06, y: 30 } });
  await first.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('+');
  await expect(page).toHaveURL(/vs=[0-9a-f]+&from=\d+&to=\d+&cursor=\d+/);
  await page.waitForTimeout(400); // the URL is written 250 ms after the view settles
  const own = page.url();
  const windowA = (await page.getByTestId('timeline').first().getAttribute('data-window'))!;
  const link = await makeLink(page);
  const p = params(link);
  for (const k of ['trace', 'vs', 'from', 'to', 'cursor']) expect(p.get(k), k).toBe(params(own).get(k));
  expect(p.get('vs')).toMatch(/^[0-9a-f]+$/);
  expect(p.get('share')).toBeTruthy();
  expect(p.get('vsshare')).toBeTruthy();
  const other = await browser.newContext();
  const reader = await other.newPage();
  await reader.goto(link);
  await expect(reader.getByTestId('compare-side-A')).toBeVisible({ timeout: 20_000 });
  await expect(reader.getByTestId('compare-side-B')).toBeVisible();
  await expect(reader.getByTestId('compare-total').locator('td').nth(3)).toHaveText(EXPECTED4.by_type.sched_switch.toLocaleString('en'));
  // The same window over both traces, and the same cursor.
  const [a0, a1] = windowA.split('-').map(Number);
  await expect.poll(async () => {
    const [b0, b1] = (await reader.getByTestId('timeline').first().getAttribute('data-window'))!.split('-').map(Number);
    return Math.max(Math.abs(b0 - a0), Math.abs(b1 - a1)) / (a1 - a0);
  }).toBeLessThan(0.002);
  await expect.poll(() => params(reader.url()).get('cursor')).toBe(p.get('cursor'));
  expect(params(reader.url()).get('vsshare')).toBe(p.get('vsshare'));
  await reader.screenshot({ path: `${artifacts}traces-share-compare-reader.png` });
  await other.close();
});

test('a share made elsewhere (kscope share, the API) is shown to the owner, who can revoke it', async ({ page }) => {
  await page.goto('/traces');
  await upload(page, THREADS4);
  await page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first().getByTestId('trace-row-open').click();
  await expect(page.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/trace=[0-9a-f]+/); // written 250 ms after the view settles
  const id = params(page.url()).get('trace')!;
  const owner = { 'X-Kscope-Token': await page.evaluate(() => localStorage.getItem('kscope.traceToken')!) };
  const made = await page.request.post(`/api/traces/${id}/share`, { headers: owner });
  expect(made.status()).toBe(201);
  const share = (await made.json()).share;
  await page.reload();
  await expect(page.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('share-open').click();
  await expect(page.getByTestId('share-elsewhere')).toBeVisible();
  await page.getByTestId('share-revoke').click();
  await expect(page.getByTestId('share-elsewhere')).toHaveCount(0);
  expect((await page.request.get(`/api/traces/${id}/share`, { headers: owner }).then((r) => r.json())).shared).toBe(false);
  expect((await page.request.get(`/api/traces/${id}`, { headers: { 'X-Kscope-Share': share } })).status()).toBe(404);
});
