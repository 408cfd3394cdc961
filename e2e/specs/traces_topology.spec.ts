// Topology for plain traces (issue 13 item 12): the 16-vCPU, 4-node VM capture without
// kscope's sysfs header shows flat lanes; an `lscpu -p` file attached afterwards (the control
// on the Traces page, PUT /api/traces/{id}/topology) or given at upload groups them by NUMA
// node and LLC. A file of another machine (CPU count) or a malformed one is refused, and the
// server's located message is shown.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

const VM16 = new URL('../../traces/intermittent8-linux6.12-vm16.txt', import.meta.url).pathname;
const scratch = new URL('../test-results/topology-inputs/', import.meta.url).pathname;

function write(name: string, text: string): string {
  mkdirSync(scratch, { recursive: true });
  writeFileSync(`${scratch}${name}`, text);
  return `${scratch}${name}`;
}

/** The VM capture without kscope's header lines (no `# kscope-sysfs:` topology). */
const plainVm16 = (name: string) => write(name,
  readFileSync(VM16, 'utf-8').split('\n').filter((l) => !l.startsWith('# kscope')).join('\n'));

/** `lscpu -p` of `cpus` CPUs, a socket, NUMA node and L3 per 4 (the VM: 0-3, 4-7, 8-11, 12-15). */
function lscpu(cpus: number): string {
  const rows = ['# CPU,Core,Socket,Node,,L1d,L1i,L2,L3']
  for (let c = 0; c < cpus; c++) {
    const n = Math.floor(c / 4)
    rows.push(`${c},${c},${n},${n},,${c},${c},${c},${n}`)
  }
  return rows.join('\n') + '\n'
}

async function openRow(page: Page, name: string): Promise<void> {
  const row = page.getByTestId('trace-row').filter({ hasText: name }).first();
  await expect(row).toBeVisible({ timeout: 25_000 });
  await row.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('timeline-canvas')).toBeVisible({ timeout: 20_000 });
}

async function expectGroupedByNode(page: Page): Promise<void> {
  const groups = page.getByTestId('lane-group');
  await expect(groups).toHaveCount(4, { timeout: 15_000 });
  await expect(groups.nth(0)).toContainText('node 0 · LLC 0');
  await expect(groups.nth(3)).toContainText('node 3 · LLC 3');
  // Each group header sits above its CPUs' lanes: node 1's header between CPU 3 and CPU 4.
  const y = async (loc: ReturnType<Page['getByTestId']>) => (await loc.boundingBox())!.y;
  const lane = (cpu: number) => page.getByTestId('lane').filter({ hasText: new RegExp(`^CPU ${cpu}$`) });
  expect(await y(groups.nth(1))).toBeGreaterThan(await y(lane(3)));
  expect(await y(groups.nth(1))).toBeLessThan(await y(lane(4)));
}

test('a plain 16-vCPU trace: flat lanes, then grouped by node and LLC after attaching lscpu -p; wrong files refused', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  const trace = plainVm16('vm16-flat.txt');
  await page.goto('/traces');
  await page.getByTestId('upload').setInputFiles(trace);
  await openRow(page, 'vm16-flat.txt');
  await expect(page.getByTestId('lane')).toHaveCount(12);
  await expect(page.getByTestId('lane-group')).toHaveCount(0);
  await expect(page.getByTestId('topology-attach')).toContainText('CPU lanes are flat');
  await page.screenshot({ path: `${artifacts}topology-flat-before.png` });

  // Another machine's topology: refused, saying both counts; the lanes stay flat.
  await page.getByTestId('topology-file').setInputFiles(write('laptop-8.lscpu', lscpu(8)));
  await expect(page.getByTestId('topology-error')).toContainText('laptop-8.lscpu: 8 CPUs', { timeout: 15_000 });
  await expect(page.getByTestId('topology-error')).toContainText('recorded on 16 CPUs');
  await page.screenshot({ path: `${artifacts}topology-refused.png` });
  // A malformed file: the line and field.
  await page.getByTestId('topology-file').setInputFiles(write('bad.lscpu', lscpu(16).replace('\n5,5,1,1,', '\n5,5,1,x,')));
  await expect(page.getByTestId('topology-error')).toContainText('bad.lscpu, line 7', { timeout: 15_000 });
  await expect(page.getByTestId('lane-group')).toHaveCount(0);

  await page.getByTestId('topology-file').setInputFiles(write('vm16.lscpu', lscpu(16)));
  await expectGroupedByNode(page);
  await expect(page.getByTestId('topology-attach')).not.toContainText('CPU lanes are flat');
  await page.screenshot({ path: `${artifacts}topology-grouped-after.png` });
  // Stored: reopened from the library, still grouped.
  await page.getByTestId('close-trace').click();
  await openRow(page, 'vm16-flat.txt');
  await expectGroupedByNode(page);
  // The browser logs the two refusals (422) it was meant to get; nothing else.
  expect(errors.filter((e) => !e.includes('status of 422'))).toEqual([]);
  expect(errors).toHaveLength(2);
});

test('a topology given at upload goes with the trace', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  const trace = plainVm16('vm16-with-topology.txt');
  await page.goto('/traces');
  await page.getByTestId('upload-topology-file').setInputFiles(write('vm16-upload.lscpu', lscpu(16)));
  await expect(page.getByTestId('upload-topology')).toContainText('vm16-upload.lscpu');
  await page.getByTestId('upload').setInputFiles(trace);
  await openRow(page, 'vm16-with-topology.txt');
  await expectGroupedByNode(page);
  expect(errors).toEqual([]);
});
