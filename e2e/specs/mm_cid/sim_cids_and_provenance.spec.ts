// Issue 13 items 6 and 11. /simulate runs the mm_cid model where the workload registers
// rseq, so seed 000's rseq_update events carry real cids (not mm_cid=-1), and the page says
// which kernel model runs. A `kscope sim --export ftrace` file opened on /traces (in this
// browser, or uploaded and opened from the server) is labelled MODELLED with its workload
// and seed, not MEASURED.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from '../page_helper';

const KSCOPE = new URL('../../../.venv/bin/kscope', import.meta.url).pathname;
const WORKLOAD = new URL('../../../wasm-core/workloads/seed000-8core-200ms.json', import.meta.url).pathname;

async function waitForSim(page: Page): Promise<void> {
  await expect(page.getByTestId('frame-digest')).toHaveText(/^step \d+/, { timeout: 20_000 });
  await expect(page.getByTestId('machine')).toBeVisible();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
}

for (const workload of ['seed000-8core-200ms', 'seed000-librseq-8core-200ms']) {
  test(`/simulate ${workload}: every rseq_update in the event log carries a real cid`, async ({ page }) => {
    const errors = recordConsoleErrors(page);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`/simulate?preset=classroom-8&workload=${workload}&seed=1&step=40`);
    await waitForSim(page);
    await expect(page.getByTestId('kernel-model')).toHaveAttribute('data-algo', 'mm_cid:v6.18');
    await expect(page.getByTestId('kernel-model')).toContainText('Linux 6.18 mm_cid allocator');
    await expect(page.getByTestId('kernel-model')).toBeInViewport();
    const rows = await page.getByTestId('event-log').locator('tbody tr').allTextContents();
    const cids = rows.flatMap((r) => [...r.matchAll(/mm_cid=(-?\d+)/g)].map((m) => Number(m[1])));
    expect(cids.length, rows.join('\n')).toBeGreaterThan(2);
    expect(cids.every((c) => c >= 0 && c < 8), cids.join(',')).toBe(true);
    if (workload === 'seed000-8core-200ms') {
      await page.screenshot({ path: `${artifacts}issue13-item6-simulate-cids-after-1280.png` });
      await page.setViewportSize({ width: 1920, height: 1080 });
      await expect(page.getByTestId('kernel-model')).toBeInViewport();
      await page.screenshot({ path: `${artifacts}issue13-item6-simulate-cids-after-1920.png` });
    }
    expect(errors).toEqual([]);
  });
}

test.describe('a simulator export on /traces', () => {
  let dir = '';
  let file = '';
  test.beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kscope-sim-export-'));
    file = join(dir, 'seed000-sim.txt');
    const r = spawnSync(KSCOPE, ['sim', '--preset', 'classroom-8', '--workload', WORKLOAD, '--seed', '3', '--until', '2s',
      '--export', 'ftrace', '-o', file, '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
  test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function expectModelled(page: Page) {
    const badge = page.getByTestId('provenance');
    await expect(badge).toBeVisible({ timeout: 20_000 });
    await expect(badge).toContainText('MODELLED');
    await expect(badge).not.toContainText('MEASURED');
    await expect(badge).toContainText('workload seed000-8core-200ms');
    await expect(badge).toContainText('seed 3');
    await expect(badge).toBeInViewport();
    await expect(page.getByTestId('trace-summary')).not.toContainText('MEASURED');
  }

  test('opened in this browser: MODELLED, with workload and seed', async ({ page }) => {
    const errors = recordConsoleErrors(page);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto('/traces');
    await page.getByTestId('open-local').setInputFiles(file);
    await expectModelled(page);
    await page.screenshot({ path: `${artifacts}issue13-item11-traces-local-modelled-after-1280.png` });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await expect(page.getByTestId('provenance')).toBeInViewport();
    await page.screenshot({ path: `${artifacts}issue13-item11-traces-local-modelled-after-1920.png` });
    expect(errors).toEqual([]);
  });

  test('uploaded and opened from the server: MODELLED, with workload and seed', async ({ page }) => {
    const errors = recordConsoleErrors(page);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto('/traces');
    await page.getByTestId('upload').setInputFiles(file);
    const row = page.getByTestId('trace-row').filter({ hasText: 'seed000-sim.txt' }).first();
    await expect(row).toBeVisible({ timeout: 25_000 });
    await expect(row.getByTestId('trace-row-modelled')).toHaveText('MODELLED');
    await page.screenshot({ path: `${artifacts}issue13-item11-traces-library-modelled-after-1280.png` });
    await row.getByRole('button', { name: 'Open' }).click();
    await expectModelled(page);
    await page.screenshot({ path: `${artifacts}issue13-item11-traces-stored-modelled-after-1280.png` });
    expect(errors).toEqual([]);
  });
});
