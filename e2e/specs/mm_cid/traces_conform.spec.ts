// "Check against model" on stored traces (issue 13 items 7 and 9):
//  - a trace whose header names no kernel release (plain tracefs text) no longer hangs on
//    "Checking…": the variant is inferred (every variant's agreement shown, labelled), and
//    the user can choose another; every error (the server's, a malformed answer) is shown;
//  - ] / [ zoom to the disagreement, where the exact events load, select its rseq_update and
//    explain it in Details; "At the cursor" then names who ran on each CPU.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from '../page_helper';

const VM16 = new URL('../../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;
const THREADS4 = new URL('../../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const scratch = new URL('../../test-results/conform-inputs/', import.meta.url).pathname;

/** The trace without kscope's `# kscope` header lines: plain tracefs text, no kernel release. */
function plainCopy(src: string, name: string, edit: (text: string) => string = (t) => t): string {
  mkdirSync(scratch, { recursive: true });
  const text = readFileSync(src, 'utf-8').split('\n').filter((l) => !l.startsWith('# kscope')).join('\n');
  const path = `${scratch}${name}`;
  writeFileSync(path, edit(text));
  return path;
}

async function uploadAndOpen(page: Page, file: string): Promise<void> {
  const name = file.split('/').pop()!;
  await page.goto('/traces');
  await page.getByTestId('upload').setInputFiles(file);
  const row = page.getByTestId('trace-row').filter({ hasText: name }).first();
  await expect(row).toBeVisible({ timeout: 25_000 });
  await row.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
}

const token = (page: Page) => page.evaluate(() => localStorage.getItem('kscope.traceToken')!);

test('no kernel release in the trace: the variant is inferred, labelled, every variant shown, another can be chosen', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  const plain = plainCopy(VM16, 'vm16-no-kernel.txt');
  await uploadAndOpen(page, plain);
  await page.getByTestId('conform-run').click();
  // Before the fix: ConformShapeError (kernel: null) thrown inside the fetch's then, "Checking…" for ever.
  await expect(page.getByTestId('conform-agreement')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('conform-run')).toHaveCount(0);
  await expect(page.getByTestId('conform-variant')).toHaveText('v6.12');
  await expect(page.getByTestId('conform-variant-source')).toHaveText('inferred from the trace (kernel version unknown)');
  await expect(page.getByTestId('conform')).toContainText('kernel version not in the trace');
  const rows = page.getByTestId('conform-variant-row');
  await expect(rows).toHaveCount(4);   // v6.12, v6.13, v6.18, v6.19
  await expect(rows.filter({ hasText: 'v6.12' })).toContainText('★ best');
  await expect(rows.filter({ hasText: 'v6.12' })).toContainText('(shown)');

  // The figures are the server's: each variant's agreement as the route gives it.
  const id = new URL(page.url()).searchParams.get('trace')!;
  const doc = await (await page.request.get(`/api/traces/${id}/conform`, { headers: { 'X-Kscope-Token': await token(page) } })).json();
  expect(doc.variant_from).toBe('inferred');
  for (const v of doc.variants) {
    await expect(rows.filter({ hasText: v.variant })).toContainText(`${(v.agreement * 100).toFixed(1)} %`);
  }
  const panel = page.getByTestId('conform');
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${artifacts}conform-inferred.png` });

  // Choose another variant: replayed with it, labelled as chosen, the inferred figures kept beside it.
  await page.getByTestId('conform-variant-choose').selectOption('v6.18');
  await expect(page.getByTestId('conform-variant')).toHaveText('v6.18', { timeout: 20_000 });
  await expect(page.getByTestId('conform-variant-source')).toHaveText('chosen');
  const v618 = doc.variants.find((v: { variant: string }) => v.variant === 'v6.18');
  await expect(page.getByTestId('conform-agreement')).toContainText(`${(v618.agreement * 100).toFixed(1)} %`);
  await expect(rows).toHaveCount(4);   // v6.12, v6.13, v6.18, v6.19
  await expect(rows.filter({ hasText: 'v6.18' })).toContainText('(shown)');
  await page.screenshot({ path: `${artifacts}conform-chosen-variant.png` });
  // At 1280x720 the variant table and the picker are on screen with a real size when scrolled to.
  await page.setViewportSize({ width: 1280, height: 720 });
  const table = page.getByTestId('conform-variants');
  await table.scrollIntoViewIfNeeded();
  const box = (await table.boundingBox())!;
  expect(box.width).toBeGreaterThan(200);
  expect(box.height).toBeGreaterThan(60);
  // four variants wrap taller than a 720 px screen beside the timeline: each row, scrolled to,
  // is on screen whole
  for (let i = 0; i < 4; i++) {
    const row = rows.nth(i);
    await row.scrollIntoViewIfNeeded();
    const r = (await row.boundingBox())!;
    expect(r.height).toBeGreaterThan(18);
    expect(r.y).toBeGreaterThanOrEqual(0);
    expect(r.y + r.height).toBeLessThanOrEqual(720);
  }
  await page.screenshot({ path: `${artifacts}conform-variants-1280x720.png` });
  await page.getByTestId('conform-variant-choose').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('conform-variant-choose')).toBeInViewport();
  await page.setViewportSize({ width: 1600, height: 1000 });
  // Back to auto: the inferred one again.
  await page.getByTestId('conform-variant-choose').selectOption('auto');
  await expect(page.getByTestId('conform-variant')).toHaveText('v6.12', { timeout: 20_000 });
  expect(errors).toEqual([]);
});

test('every error is shown: a kernel without mm_cid in rseq_update, and a malformed answer', async ({ page }) => {
  const old = plainCopy(THREADS4, 'linux6.1-rseq.txt', (t) => '# kscope: kernel=6.1.0-28-amd64\n'
    + t.replace(/rseq_update: cpu_id=(\d+) node_id=\d+ mm_cid=\d+/g, 'rseq_update: cpu_id=$1'));
  await uploadAndOpen(page, old);
  await page.getByTestId('conform-run').click();
  await expect(page.getByTestId('conform-error')).toContainText('no mm_cid field', { timeout: 20_000 });
  await expect(page.getByTestId('conform-error')).toContainText('Linux 6.1.0-28-amd64');
  await expect(page.getByTestId('conform-run')).toHaveText('Check again');
  await page.screenshot({ path: `${artifacts}conform-no-mm-cid.png` });

  // A malformed answer (a server of another version): named on the page, not thrown into the console.
  await page.route('**/conform?*', (route) => route.fulfill({ status: 200, contentType: 'application/json',
    body: JSON.stringify({ kernel: null, variant: 'v6.12', disagreements: [], first_disagreements: [] }) }));
  await page.getByTestId('conform-run').click();
  await expect(page.getByTestId('conform-error')).toContainText('conformance answer: agreement: expected a number, got nothing');
  await expect(page.getByTestId('conform-run')).toBeEnabled();
});

test('] zooms to the disagreement where exact events load, selects its rseq_update and explains it in Details', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await uploadAndOpen(page, VM16);
  // Zoomed out: the whole trace from the summaries, no exact events.
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'buckets');
  await page.getByTestId('conform-run').click();
  await expect(page.getByTestId('conform-agreement')).toBeVisible({ timeout: 20_000 });
  const id = new URL(page.url()).searchParams.get('trace')!;
  const doc = await (await page.request.get(`/api/traces/${id}/conform`, { headers: { 'X-Kscope-Token': await token(page) } })).json();
  const first = doc.disagreements[0];

  await page.getByTestId('timeline-canvas').focus();
  await page.keyboard.press(']');
  // Before the fix: the cursor moved, the view stayed zoomed out, the window had no events ("—" at the cursor).
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-level', 'slices', { timeout: 15_000 });
  await expect(page.getByTestId('loaded-window')).toContainText('exact events loaded');
  const [a, b] = (await page.getByTestId('timeline').getAttribute('data-window'))!.split('-').map(Number);
  expect(a).toBeLessThan(first.ts);
  expect(b).toBeGreaterThan(first.ts);
  await expect(page).toHaveURL(new RegExp(`cursor=${first.ts}(&|$)`));
  const details = page.getByTestId('details');
  await expect(details).toContainText('rseq_update', { timeout: 15_000 });
  await expect(details.locator('dt:has-text("mm_cid") + dd')).toHaveText(String(first.kernel_cid));
  await expect(page.getByTestId('details-disagreement')).toContainText(`the kernel wrote mm_cid=${first.kernel_cid}`);
  await expect(page.getByTestId('details-disagreement')).toContainText(`gave cid ${first.model_cid} (MODELLED)`);
  await expect(page.getByTestId('details-disagreement')).toContainText(`Why: ${first.why}`);
  // At the cursor: who runs on the disagreement's CPU, from the loaded events (not "—").
  // The first cell is the CPU; on the disagreement's CPU the running task is named, not "—".
  const cpuRow = page.getByTestId('at-cursor').locator('tbody tr').filter({ has: page.locator(`td:first-child:text-is("${first.cpu}")`) });
  await expect(cpuRow).toHaveCount(1);
  await expect(cpuRow.locator('td').nth(1)).not.toHaveText('—');
  await expect(cpuRow.locator('td').nth(1)).toContainText(String(first.tid));
  await page.getByTestId('details').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${artifacts}conform-step-zoomed.png` });

  // [ from the second goes back to the first; the next one is explained the same way.
  if (doc.disagreements.length > 1) {
    await page.keyboard.press(']');
    const second = doc.disagreements[1];
    await expect(page).toHaveURL(new RegExp(`cursor=${second.ts}(&|$)`));
    await expect(page.getByTestId('details-disagreement')).toContainText(`Why: ${second.why}`, { timeout: 15_000 });
    await page.keyboard.press('[');
    await expect(page.getByTestId('details-disagreement')).toContainText(`Why: ${first.why}`, { timeout: 15_000 });
  }
  expect(errors).toEqual([]);
});
