// "Check against model" on a stored trace (moved from traces_stored.spec.ts): the mm_cid
// model's agreement with the kernel's rseq cids in the 6.12 VM capture, the disagreements as
// diamonds on the timeline, and the selected one explained in the narration.
import { test, expect } from '@playwright/test';
import { artifacts, openStored, recordConsoleErrors, traceToken as token, uploadInLibrary as upload } from '../page_helper';

const VM16 = new URL('../../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;

test('check against model: agreement, diamonds on the timeline, the selected disagreement explained', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  // The 6.12 VM capture: 340 rseq updates, a few the v6.12 model explains otherwise (traces/conformance.json).
  await page.goto('/traces');
  await upload(page, VM16);
  await openStored(page, 'intermittent8-linux6.12-vm16.txt');
  await expect(page).toHaveURL(/trace=[0-9a-f]+/);
  const id = await page.evaluate(() => new URLSearchParams(location.search).get('trace'));
  expect(id).toMatch(/^[0-9a-f]+$/);
  await page.getByTestId('conform-run').click();
  // The same figure the conform route gives (computed on the server from the stored events).
  const res = await page.request.get(`/api/traces/${id}/conform`, { params: { algo: 'mm_cid' },
    headers: { 'X-Kscope-Token': await token(page) } });
  expect(res.ok()).toBe(true);
  const doc = await res.json();
  expect(doc.disagreements.length).toBeGreaterThan(0);
  await expect(page.getByTestId('conform-agreement')).toHaveText(
    `${(doc.agreement * 100).toFixed(1)} % (${doc.agree} of ${doc.compared} rseq updates compared)`, { timeout: 20_000 });
  await expect(page.getByTestId('conform')).toContainText('MODELLED');
  await expect(page.getByTestId('conform')).toContainText('MEASURED');
  await expect(page.getByTestId('conform')).toContainText(`mm_cid model ${doc.variant}`);
  // ] steps to the first disagreement: the narration gives both cids and the replay's why.
  await page.getByTestId('timeline-canvas').focus();
  await page.keyboard.press(']');
  const first = doc.disagreements[0];
  await expect(page.getByTestId('conform-narration')).toContainText(`the kernel wrote mm_cid=${first.kernel_cid}`);
  await expect(page.getByTestId('conform-narration')).toContainText(`Why: ${first.why}`);
  await expect(page.getByTestId('conform-kernel-cid')).toHaveText(String(first.kernel_cid));
  await expect(page.getByTestId('conform-model-cid')).toHaveText(String(first.model_cid));
  await expect(page).toHaveURL(new RegExp(`cursor=${first.ts}(&|$)`));
  // Its diamond is drawn on its CPU's lane at its time: the canvas is vermillion just below the diamond's centre.
  await page.waitForTimeout(300);
  const lane = page.getByTestId('lane').filter({ hasText: new RegExp(`^CPU ${first.cpu}$`) });
  const laneBox = (await lane.boundingBox())!;
  const pixel = await page.evaluate(({ ts, laneMid }) => {
    const canvas = document.querySelector('[data-testid="timeline-canvas"]') as HTMLCanvasElement;
    const [a, b] = (document.querySelector('[data-testid="timeline"]') as HTMLElement).dataset.window!.split('-').map(Number);
    const r = canvas.getBoundingClientRect();
    const x = ((ts - a) / (b - a)) * r.width;
    const dpr = canvas.width / r.width;
    // The pixel nearest vermillion within 4 px of the diamond's centre (] now zooms in, and the
    // cursor's dashed line and the mark's white ≠ cross its centre).
    const ctx = canvas.getContext('2d')!;
    let best = [255, 255, 255];
    let bestD = Infinity;
    const side = Math.round(9 * dpr);
    const box = ctx.getImageData(Math.round((x - 4) * dpr), Math.round((laneMid - r.top - 4) * dpr), side, side).data;
    for (let i = 0; i < box.length; i += 4) {
      const dist = Math.abs(box[i] - 0xd5) + Math.abs(box[i + 1] - 0x5e) + Math.abs(box[i + 2]);
      if (dist < bestD) { bestD = dist; best = [box[i], box[i + 1], box[i + 2]]; }
    }
    return best;
  }, { ts: first.ts, laneMid: laneBox.y + laneBox.height / 2 });
  // Okabe-Ito vermillion #D55E00, give or take anti-aliasing.
  [0xd5, 0x5e, 0x00].forEach((want, k) => expect(Math.abs(pixel[k] - want)).toBeLessThan(24));
  await page.screenshot({ path: `${artifacts}traces-conform.png` });
  if (doc.disagreements.length > 1) {
    await page.getByTestId('conform-next').click();
    await expect(page.getByTestId('conform-narration')).toContainText(`CPU ${doc.disagreements[1].cpu}`);
  }
  expect(errors).toEqual([]);
});
