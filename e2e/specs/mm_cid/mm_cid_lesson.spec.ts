// The mm_cid lesson (7e019dc): opened from a link, stepped with the keyboard,
// compared side by side on seed 000's 200 ms benchmark. The numbers asserted
// are the model's (MODELLED), read from the page.
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from '../page_helper';

const LESSON = '/lesson/mm_cid';
const COMPARE = `${LESSON}?variant=compare&preset=classroom-8&threads=8&placement=cpus:0-7&delay_ms=200&seed=1`;
const PER_L3 = Array.from({ length: 24 }, (_, i) => i * 8).join(',');

/** Waits until the lesson's first view is drawn and the network is quiet. */
async function waitForLesson(page: Page): Promise<void> {
  await expect(page.getByTestId('lesson-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /);
  await expect(page.locator('[data-testid^="picture-v6"] svg').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
}

const digest = (page: Page) => page.getByTestId('lesson-digest').textContent();

async function press(page: Page, key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

/** The cidmask bits a picture shows, as "10100000". */
async function bits(page: Page, variant: string): Promise<string> {
  const cells = page.getByTestId(`picture-${variant}`).getByTestId('cid-bit');
  return (await cells.evaluateAll((els) => els.map((el) => el.getAttribute('data-set')))).join('');
}

/** Cumulative cost of the measured bursts of a kernel, ns (the cost table's data attributes). */
async function totalNs(page: Page, variant: string): Promise<{ total: number; mean: number }> {
  const row = page.getByTestId(`cost-${variant}`);
  return { total: Number(await row.getAttribute('data-total-ns')), mean: Number(await row.getAttribute('data-mean-ns')) };
}

test('a link opens the lesson at its step; → and ← step, and back + forward restores the exact state', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${COMPARE}&step=13`);
  await waitForLesson(page);
  await expect(page.getByTestId('modelled')).toContainText('MODELLED');
  await expect(page.getByTestId('provenance')).toHaveText('from 7e019dc; v6.12 = before, v6.13 = after');
  await expect(page.getByTestId('lesson-intro')).toContainText('concurrency ID');
  await expect(page.getByTestId('nav-lesson')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('lesson-step')).toHaveText('13');
  await expect(page.getByTestId('lesson-digest')).toHaveText(
    'step 13 · t=800000001 ns · v6.12: cidmask 10000000 · cpu cids 1:0 · bursts 4 | v6.13: cidmask 01000000 · cpu cids 1:1 · bursts 4',
  );
  // The step in words: v6.12 gave CPU 1 the lowest free cid, 0, whose area CPU 0 wrote; v6.13 its own back.
  await expect(page.getByTestId('narration-v6.12')).toContainText('v6.12 takes the lowest free cid below nr_cpu_ids (8): cid 0');
  await expect(page.getByTestId('narration-v6.12')).toContainText("last written in CPU 0's cache in L3 #0");
  await expect(page.getByTestId('narration-v6.13')).toContainText('v6.13 tried recent_cid 1 first — free — so it got cid 1 back');
  await expect(page.getByTestId('picture-v6.12').getByTestId('transfer')).toHaveAttribute('data-source', 'same-llc-core');
  await expect(page.locator('[data-testid="picture-v6.12"] [data-testid="lesson-cpu"][data-cpu="1"]')).toHaveAttribute('data-differs', 'true');
  await page.screenshot({ path: `${artifacts}mm_cid-compare-classroom-8-1280x720.png` });

  const at10 = await digest(page);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await press(page, 'ArrowRight', 7);
  await expect(page.getByTestId('lesson-step')).toHaveText('20');
  await expect(page).toHaveURL(/[?&]step=20(&|$)/);
  const at17 = await digest(page);
  const narration17 = await page.getByTestId('lesson-narration').textContent();
  await press(page, 'ArrowLeft', 7);
  await expect(page.getByTestId('lesson-step')).toHaveText('13');
  expect(await digest(page)).toBe(at10);
  await press(page, 'ArrowRight', 7);
  await expect(page.getByTestId('lesson-step')).toHaveText('20');
  expect(await digest(page)).toBe(at17);
  await expect(page.getByTestId('lesson-narration')).toHaveText(narration17!);

  // The same URL in a fresh page: the same view.
  const fresh = await page.context().newPage();
  await fresh.emulateMedia({ reducedMotion: 'reduce' });
  await fresh.goto(page.url());
  await waitForLesson(fresh);
  expect(await digest(fresh)).toBe(at17);
  await fresh.close();
  expect(errors).toEqual([]);
});

test('the cidmask changes as the allocator hands out and takes back cids (N: next allocation)', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto(`${LESSON}?variant=v6.12&preset=classroom-8`);
  await waitForLesson(page);
  await expect(page.getByTestId('lesson-step')).toHaveText('0');
  expect(await bits(page, 'v6.12')).toBe('00000000');
  await page.keyboard.press('n');
  await expect(page.getByTestId('lesson-step')).toHaveText('1');
  // The start rendezvous: every thread runs once on its CPU and takes a cid there.
  await expect.poll(() => bits(page, 'v6.12')).toBe('11111111');
  await expect(page.getByTestId('narration-v6.12')).toContainText('FIRST_FREE');
  const seen = new Set<string>([await bits(page, 'v6.12')]);
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('n');
    seen.add(await bits(page, 'v6.12'));
  }
  // The 100 ms scan clears bits, later allocations set others.
  expect(seen.size).toBeGreaterThan(3);
  expect([...seen].some((b) => /^0+$/.test(b) || b.split('1').length - 1 < 8)).toBe(true);
  await expect(page.getByTestId('pcpu-table').locator('tbody tr')).toHaveCount(8);
  await page.setViewportSize({ width: 1280, height: 720 });
  await waitForLesson(page);
  await page.screenshot({ path: `${artifacts}mm_cid-single-v6.12-classroom-8.png` });
  expect(errors).toEqual([]);
});

test('the 200 ms benchmark side by side: v6.12 costs more than v6.13 (classroom-8, then EPYC one thread per L3)', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(COMPARE);
  await waitForLesson(page);
  // Run to a fixed simulated time with the Go-to control: the end of the run.
  await page.getByTestId('goto-ms').fill('12000');
  await page.getByTestId('goto-button').click();
  await expect(page.getByTestId('lesson-finished')).toBeVisible();
  const a12 = await totalNs(page, 'v6.12');
  const a13 = await totalNs(page, 'v6.13');
  console.log(`classroom-8, 8 threads, 200 ms: v6.12 total ${a12.total} ns (mean ${a12.mean}), v6.13 total ${a13.total} ns (mean ${a13.mean})`);
  expect(a12.total).toBeGreaterThan(a13.total);
  await expect(page.getByTestId('cost-ratio')).toContainText('v6.12 costs');
  await page.setViewportSize({ width: 1280, height: 720 });
  await waitForLesson(page);
  await page.screenshot({ path: `${artifacts}mm_cid-compare-classroom-8-end-1280x720.png` });

  // EPYC, seed 000's 24-core/24-L3 configuration, from a link with until_ms (mid-run: 12 s of ~24).
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.goto(`${LESSON}?variant=compare&preset=epyc-9654-2s&threads=24&placement=cpus:${PER_L3}&delay_ms=200&seed=1&until_ms=12000`);
  await waitForLesson(page);
  await expect(page).toHaveURL(/[?&]step=\d+/);
  await expect(page).not.toHaveURL(/until_ms/);
  await expect(page.getByTestId('picture-v6.12').getByTestId('lesson-llc')).toHaveCount(24);
  const m12 = await totalNs(page, 'v6.12');
  const m13 = await totalNs(page, 'v6.13');
  console.log(`epyc-9654-2s, 24 threads one per L3, 200 ms, at 12 s: v6.12 total ${m12.total} ns (mean ${m12.mean}), v6.13 total ${m13.total} ns (mean ${m13.mean})`);
  expect(m12.total).toBeGreaterThan(m13.total);
  await page.screenshot({ path: `${artifacts}mm_cid-compare-epyc-9654-2s.png` });
  await page.getByTestId('goto-ms').fill('60000');
  await page.getByTestId('goto-ms').press('Enter');
  await expect(page.getByTestId('lesson-finished')).toBeVisible();
  const e12 = await totalNs(page, 'v6.12');
  const e13 = await totalNs(page, 'v6.13');
  console.log(`epyc-9654-2s, 24 threads one per L3, 200 ms, whole run: v6.12 total ${e12.total} ns (mean ${e12.mean}), v6.13 total ${e13.total} ns (mean ${e13.mean})`);
  expect(e12.total).toBeGreaterThan(e13.total);
  expect(errors).toEqual([]);
});

test('EPYC: a hand-made workload from the panel, one kernel, step to the first cross-L3 pull', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`${LESSON}?variant=v6.12&preset=epyc-9654-2s`);
  await waitForLesson(page);
  await page.getByTestId('edit-workload').click();
  await expect(page.getByTestId('workload-panel')).toBeVisible();
  await page.getByTestId('preset-per-l3').click();
  await expect(page).toHaveURL(/threads=24&placement=cpus:0,8,16,/);
  await expect(page.getByTestId('thread-count')).toHaveText('24');
  await page.getByTestId('remove-thread').click();
  await expect(page.getByTestId('thread-count')).toHaveText('23');
  await page.getByTestId('add-thread').click();
  await expect(page.getByTestId('thread-count')).toHaveText('24');
  await page.getByTestId('delay-input').fill('150');
  await page.getByTestId('delay-input').press('Enter');
  await expect(page).toHaveURL(/delay_ms=150/);
  await page.screenshot({ path: `${artifacts}mm_cid-workload-panel-epyc-9654-2s.png` });
  await page.getByTestId('edit-workload').click();
  await waitForLesson(page);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  // Step allocation by allocation until a burst pulls its area from another L3.
  const arrow = page.getByTestId('picture-v6.12').locator('[data-testid="transfer"][data-source="other-llc"], [data-testid="transfer"][data-source="other-socket"]');
  for (let i = 0; i < 200 && (await arrow.count()) === 0; i++) await page.keyboard.press('n');
  await expect(arrow.first()).toBeVisible();
  await expect(page.getByTestId('narration-v6.12')).toContainText('the burst pulls its 256 lines across');
  await waitForLesson(page);
  await page.screenshot({ path: `${artifacts}mm_cid-single-v6.12-epyc-9654-2s.png` });
  expect(errors).toEqual([]);
});

test('Space plays and pauses; motion runs without errors; the header links the lesson', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/simulate?preset=classroom-8');
  await page.getByTestId('nav-lesson').click();
  await expect(page).toHaveURL(/\/lesson\/mm_cid\?preset=classroom-8/);
  await waitForLesson(page);
  await page.getByTestId('speed-select').selectOption('5');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Space');
  await expect(page.getByTestId('play')).toContainText('Pause');
  await expect.poll(async () => Number(await page.getByTestId('lesson-step').textContent()), { timeout: 5000 }).toBeGreaterThanOrEqual(4);
  await page.keyboard.press('Space');
  await expect(page.getByTestId('play')).toContainText('Play');
  const paused = await page.getByTestId('lesson-step').textContent();
  await page.waitForTimeout(500);
  await expect(page.getByTestId('lesson-step')).toHaveText(paused!);
  await expect(page).toHaveURL(new RegExp(`[?&]step=${paused}(&|$)`));
  // Mid-motion: a cid flies to its CPU (the allocation at t=800 ms in v6.13).
  await page.goto(`${COMPARE}&step=9`);
  await waitForLesson(page);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(350);
  await page.screenshot({ path: `${artifacts}mm_cid-motion-classroom-8.png` });
  await page.waitForTimeout(1500);
  expect(errors).toEqual([]);
});
