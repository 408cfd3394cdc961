// The first vertical slice: the browser asks the C core (as wasm) for a preset
// and draws it with D3; the API serves the same numbers from the native build.
import { test, expect } from '@playwright/test';
import { artifacts, recordConsoleErrors, waitForIdle } from './page_helper';

test('switching to epyc-9654-2s draws 384 CPUs in 24 LLC groups', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.goto('/');
  await waitForIdle(page);
  await expect(page.getByTestId('cpu')).toHaveCount(8);           // default: classroom-8

  await page.getByTestId('preset-select').selectOption('epyc-9654-2s');
  await expect(page.getByTestId('cpu')).toHaveCount(384);
  await expect(page.getByTestId('llc')).toHaveCount(24);
  await expect(page.getByTestId('node')).toHaveCount(2);
  await expect(page.getByTestId('socket')).toHaveCount(2);
  await expect(page).toHaveURL(/preset=epyc-9654-2s/);
  await waitForIdle(page);
  await page.screenshot({ path: `${artifacts}topology-epyc-9654-2s.png`, fullPage: true });
  expect(errors).toEqual([]);
});

test('the browser (wasm) and the API (native) agree on the topology', async ({ page, request }) => {
  const api = await (await request.get('/api/topologies/epyc-9654-2s')).json();
  await page.goto('/?preset=epyc-9654-2s');
  await waitForIdle(page);
  const drawn = await page.getByTestId('cpu').evaluateAll((els) =>
    els.map((el) => Number(el.getAttribute('data-cpu'))).sort((a, b) => a - b));
  expect(drawn).toEqual(api.cpu_list.map((c: { cpu: number }) => c.cpu));
  expect(api).toMatchObject({ cpus: 384, cores: 192, llcs: 24, nodes: 2, sockets: 2 });
});

test('a link with ?preset= reproduces the view on a projector-sized window', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/?preset=classroom-8');
  await waitForIdle(page);
  await expect(page.getByTestId('cpu')).toHaveCount(8);
  await expect(page.getByTestId('llc')).toHaveCount(2);
  await page.screenshot({ path: `${artifacts}topology-classroom-8.png` });
  expect(errors).toEqual([]);
});
