// Shared page helpers: collect console errors, and wait until the app is idle
// (wasm loaded, first frame drawn) before asserting or taking a screenshot.
import { expect, type Page } from '@playwright/test';

/** Starts recording console errors and page errors; returns the live list. */
export function recordConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') errors.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

/** Waits for the topology view to be drawn and the network to settle. */
export async function waitForIdle(page: Page): Promise<void> {
  await expect(page.getByTestId('cpu').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
}

export const artifacts = new URL('../artifacts/', import.meta.url).pathname;
