// Issue 13 item 3: every step of /learn/mm_cid shows, on screen, what its narration says.
// Each step's "expect" claims (frontend/src/lessons/mm_cid/mm_cid.lesson.json, checked against the
// model by lesson_expect.test.ts) are checked here against the page itself: the instant and
// the cidmask and per-CPU cids the player drew (its digest line), and the narration panel.
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from '../page_helper';

type Claim = { kind: string; variant?: string; min_ms?: number; max_ms?: number; taken?: number[]; free?: number[]; cpu?: number; cid?: number };
const lesson = JSON.parse(readFileSync(new URL('../../../frontend/src/lessons/mm_cid/mm_cid.lesson.json', import.meta.url), 'utf8')) as {
  steps: { id: string; title: string; expect: Claim[]; scenario?: { variant?: string } }[];
};

/** The player's digest: "step N · t=T ns · v6.12: cidmask 0101… · cpu cids 0:0 7:7 · bursts B | v6.13: …". */
function parseDigest(text: string) {
  const t = /· t=(\d+) ns ·/.exec(text);
  const runs = new Map<string, { mask: string; cpuCids: Map<number, number> }>();
  for (const m of text.matchAll(/(v6\.\d+): cidmask ([01]+) · cpu cids ([^·]+) ·/g)) {
    const cpuCids = new Map<number, number>();
    for (const pair of m[3].trim().split(' ')) {
      const [cpu, cid] = pair.split(':').map(Number);
      if (Number.isFinite(cpu) && Number.isFinite(cid)) cpuCids.set(cpu, cid);
    }
    runs.set(m[1], { mask: m[2], cpuCids });
  }
  return { ms: t ? Number(t[1]) / 1e6 : NaN, runs };
}

async function showStep(page: Page, k: number): Promise<string> {
  await page.goto(`/learn/mm_cid?step=${k}`);
  await expect(page.getByTestId('lesson-player')).toHaveAttribute('data-step', String(k));
  await expect(page.getByTestId('lp-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /, { timeout: 20_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
  return (await page.getByTestId('lp-digest').textContent()) ?? '';
}

test('every /learn/mm_cid step shows the instant, cids and per-CPU cids its claims state', async ({ page }) => {
  test.setTimeout(120_000);
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  const failures: string[] = [];
  for (const [k, step] of lesson.steps.entries()) {
    const d = parseDigest(await showStep(page, k));
    const first = [...d.runs.keys()][0];
    for (const c of step.expect) {
      const run = d.runs.get(c.variant ?? first);
      const where = `step ${k + 1} ${step.id} ${JSON.stringify(c)}`;
      if (c.kind === 'time' && !(d.ms >= c.min_ms! && d.ms <= c.max_ms!)) failures.push(`${where}: page shows t=${d.ms} ms`);
      if (c.kind === 'cids' && run) {
        for (const cid of c.taken ?? []) if (run.mask[cid] !== '1') failures.push(`${where}: cid ${cid} drawn free`);
        for (const cid of c.free ?? []) if (run.mask[cid] === '1') failures.push(`${where}: cid ${cid} drawn taken`);
      }
      if (c.kind === 'pcpu' && c.cid !== undefined && run && (run.cpuCids.get(c.cpu!) ?? -1) !== c.cid) {
        failures.push(`${where}: CPU ${c.cpu} drawn with cid ${run.cpuCids.get(c.cpu!) ?? -1}`);
      }
    }
  }
  expect(failures).toEqual([]);
  expect(errors).toEqual([]);
});

test('step 4, the scan: after 204 ms, cids 0-6 freed by the scan, the narration and the allocator log say so', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  const step3 = parseDigest(await showStep(page, 2));
  const step4 = parseDigest(await showStep(page, 3));
  expect(step3.ms).toBeCloseTo(200, 0);
  expect(step4.ms).toBeGreaterThanOrEqual(204);   // the scan runs on the return to user after the 204 ms tick
  expect(step4.ms).not.toBe(step3.ms);
  expect(step3.runs.get('v6.12')!.mask.slice(0, 8)).toBe('11111111');
  // cids 0-6 freed; cid 7 is the running thread's, whose return to user runs the scan
  expect(step4.runs.get('v6.12')!.mask.slice(0, 8)).toBe('00000001');
  await expect(page.getByTestId('lp-title')).toHaveText('The 100 ms scan takes idle cids back');
  const player = page.getByTestId('lesson-player');
  await expect(player).toContainText('frees cids 0 to 6');
  await expect(player).toContainText(/204(\.0+)? ms/);
  await page.screenshot({ path: `${artifacts}issue13-item3-learn-step4-after-1280.png` });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await expect(page.getByTestId('lp-digest')).toHaveText(/· t=2\d{8} ns ·/);
  await page.screenshot({ path: `${artifacts}issue13-item3-learn-step4-after-1920.png` });
  expect(errors).toEqual([]);
});
