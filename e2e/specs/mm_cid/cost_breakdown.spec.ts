// The lesson's cost breakdown (issue 15, item 2: "the browser shows, for any burst, which
// mechanism cost what"). Presenter mode at 1280x720, the step where v6.12 hands thread 1002
// the lowest free cid (an area never written): the 'breakdown' tab puts the panel on the
// stage; it is visible with a real size, its bar's segments have width, its parts' ns add
// up to the total it shows, the total is the burst's cost in the narration, the background
// traffic is shown as a labelled parameter, and no text is under 18 px. The narration (learn
// mode) says why the burst cost what it did, from the same parts. Screenshots:
// e2e/artifacts/cost-breakdown-present-1280.png, cost-breakdown-learn-1280.png.
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { artifacts, recordConsoleErrors } from '../page_helper';
import { textSizes } from '../text_size';

const lesson = JSON.parse(readFileSync(new URL('../../../frontend/src/lessons/mm_cid/mm_cid.lesson.json', import.meta.url), 'utf8')) as {
  steps: { id: string; views: { show: string[] } }[];
};
const STEP = lesson.steps.findIndex((s) => s.id === 'lowest-free');

async function waitForStep(page: Page, step: number): Promise<void> {
  await expect(page.getByTestId('lesson-player')).toHaveAttribute('data-step', String(step));
  await expect(page.getByTestId('lp-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /, { timeout: 20_000 });
}

/** The panel's numbers: the total it shows (text and attribute) and each part's shown ns. */
async function panelNumbers(page: Page, row: string) {
  const r = page.getByTestId(`cost-breakdown-${row}`);
  const totalAttr = Number(await r.getAttribute('data-total-ns'));
  const totalText = Number((await r.locator('.cost-breakdown-total').innerText()).replace(/[^\d]/g, ''));
  const parts = await r.locator('.cost-parts li').evaluateAll((lis) => lis.map((li) => ({
    part: li.getAttribute('data-part')!,
    ns: Number(li.getAttribute('data-ns')),
    shown: Number((li.querySelector('.cost-part-ns')!.textContent ?? '').replace(/[^\d]/g, '')),
    label: li.querySelector('.cost-part-label')!.textContent,
  })));
  const segs = await r.locator('.cost-seg').evaluateAll((els) => els.map((e) => ({
    part: e.getAttribute('data-part'), width: e.getBoundingClientRect().width, text: e.textContent,
  })));
  return { totalAttr, totalText, parts, segs };
}

test('presenter mode 1280x720: the breakdown of the step\'s burst is on the stage, adds up, and is readable', async ({ page }) => {
  expect(STEP, 'the lesson has its lowest-free step').toBeGreaterThanOrEqual(0);
  expect(lesson.steps[STEP].views.show).toContain('breakdown');
  const errors = recordConsoleErrors(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`/present/mm_cid?step=${STEP}`);
  await waitForStep(page, STEP);
  await page.getByTestId('lp-view-breakdown').click();
  const panel = page.getByTestId('cost-breakdown');
  await expect(panel).toBeVisible();
  const box = (await panel.boundingBox())!;
  expect(box.width).toBeGreaterThan(300);
  expect(box.height).toBeGreaterThan(100);
  expect(box.y + box.height, 'the panel ends inside the window').toBeLessThanOrEqual(720);

  await expect(page.getByTestId('cost-model-note')).toHaveText(/cost model v2 · background traffic \(a workload parameter\): 0 \(none\) per core, 0 \(none\) per L3/);
  await expect(panel.locator('.modelled-tag')).toHaveText('MODELLED');

  const n = await panelNumbers(page, 'v6.12');
  expect(n.totalAttr).toBeGreaterThan(0);
  expect(n.totalText).toBe(n.totalAttr);
  expect(n.parts.length).toBeGreaterThan(1);
  for (const p of n.parts) expect(p.shown, p.part).toBe(p.ns);
  expect(n.parts.reduce((s, p) => s + p.ns, 0), 'the parts add up to the total shown').toBe(n.totalAttr);
  // An area never written: the page faults are the largest part, and say so in words.
  const largest = [...n.parts].sort((a, b) => b.ns - a.ns)[0];
  expect(largest).toMatchObject({ part: 'first_touch', label: 'first touch' });
  // Every part has a segment with width and its number; the widest carries its name too.
  expect(n.segs.map((s) => s.part)).toEqual(n.parts.map((p) => p.part));
  for (const [i, s] of n.segs.entries()) {
    expect(s.width, `${s.part}'s segment`).toBeGreaterThan(10);
    expect(s.text).toMatch(new RegExp(`^${i + 1}\\b`));
  }
  expect(n.segs.find((s) => s.part === 'first_touch')!.text).toContain('first touch');

  // Any earlier burst can be browsed: its breakdown adds up too, and "later" comes back.
  const title = page.getByTestId('cost-breakdown-v6.12').locator('.cost-breakdown-title');
  const stepTitle = await title.innerText();
  await expect(page.getByTestId('cost-later')).toBeDisabled();
  await page.getByTestId('cost-earlier').click();
  await expect(page.getByTestId('cost-browse-label')).toHaveText('1 burst before the latest');
  await expect(title).not.toHaveText(stepTitle);
  const earlier = await panelNumbers(page, 'v6.12');
  expect(earlier.totalAttr).toBeGreaterThan(0);
  expect(earlier.parts.reduce((s, p) => s + p.ns, 0)).toBe(earlier.totalAttr);
  await page.screenshot({ path: `${artifacts}cost-breakdown-present-1280-earlier.png` });
  await page.getByTestId('cost-later').click();
  await expect(title).toHaveText(stepTitle);

  const small = (await textSizes(page, '[data-testid="cost-breakdown"]')).filter((t) => t.px < 17.95);
  expect(small, 'no text under 18 px').toEqual([]);
  await page.screenshot({ path: `${artifacts}cost-breakdown-present-1280.png` });
  expect(errors).toEqual([]);
});

test('learn mode: the burst\'s narration says why it cost what it did, with the figure the panel shows', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`/learn/mm_cid?step=${STEP}`);
  await waitForStep(page, STEP);
  const n = await panelNumbers(page, 'v6.12');
  const ft = n.parts.find((p) => p.part === 'first_touch')!;
  const line = page.getByRole('region', { name: 'What the allocator did, and why' }).getByText(/burst: thread 1002 .*; why: /i).first();
  await expect(line).toBeVisible();
  const text = await line.innerText();
  // "…; why: 12.236 µs: 11.888 µs first touch (page faults on the first write to each page)…"
  const why = /why: ([\d.]+) µs: ([\d.]+) µs first touch \(page faults/.exec(text);
  expect(why, text).not.toBeNull();
  expect(Math.abs(Number(why![1]) * 1000 - n.totalAttr)).toBeLessThanOrEqual(1);
  expect(Math.abs(Number(why![2]) * 1000 - ft.ns)).toBeLessThanOrEqual(1);
  await page.getByTestId('cost-breakdown').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${artifacts}cost-breakdown-learn-1280.png`, fullPage: true });
});
