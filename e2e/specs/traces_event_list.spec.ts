// The event list synced with the timeline, on the shipped 6.18 capture opened locally: the
// window's events (counted against the text), virtualised (few rows in the DOM), a click
// moves the cursor and selects the event, the cursor moving scrolls the list, the page's
// filter applies (one type: a column per field), keyboard ↑ ↓, 18 px text at 1280x720.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { artifacts, recordConsoleErrors, twoFrames } from './page_helper';
import { textSizes, under } from './text_size';

const TRACE = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const TEXT = readFileSync(TRACE, 'utf-8');
const EVENTS = TEXT.split('\n').filter((l) => /^\s*\S.*\[\d+\]\s+\S+\s+\d+\.\d+: \w+:/.test(l));
const SWITCHES = EVENTS.filter((l) => l.includes(' sched_switch: ')).length;

test('the event list: the window\'s events, click to the cursor, the cursor scrolls it, shared filter', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/traces');
  await page.getByTestId('open-local').setInputFiles(TRACE);
  await expect(page.getByTestId('trace-summary')).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('event-list-toggle').check();
  const list = page.getByTestId('event-list');
  await expect(list).toBeVisible();
  // The whole trace is on screen: every event, and only a screenful of rows in the DOM.
  await expect(page.getByTestId('event-list-count')).toContainText(`${EVENTS.length.toLocaleString('en')} events`);
  const rendered = await list.getByTestId('event-row').count();
  expect(rendered).toBeGreaterThan(3);
  expect(rendered).toBeLessThan(60);
  const body = (await page.getByTestId('event-list-body').boundingBox())!;
  expect(body.height).toBeGreaterThan(90);

  // Click the fourth row: the cursor goes to it, the details show that event.
  const row = list.getByTestId('event-row').nth(3);
  const cells = await row.locator('[role=cell]').allTextContents();
  await row.click();
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('details')).toContainText(cells[3].trim());
  await expect(page.getByTestId('details').locator('dt:has-text("time") + dd')).toHaveText(cells[0].replace('▶ ', '').trim());
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}event-list-1280.png` });
  expect(under(await textSizes(page, '[data-testid="event-list"]'), 18)).toEqual([]);

  // ↓ in the list: the next event, selected and at the cursor.
  await page.getByTestId('event-list-body').focus();
  await page.keyboard.press('ArrowDown');
  await expect(list.getByTestId('event-row').nth(4)).toHaveAttribute('aria-selected', 'true');

  // The cursor far along (a click at 90% of the timeline): the list scrolls there.
  const canvas = page.getByTestId('timeline-canvas');
  const box = (await canvas.boundingBox())!;
  await canvas.click({ position: { x: box.width * 0.9, y: 30 } });
  const atCursor = list.locator('.event-list-row.at-cursor');
  await expect(atCursor).toHaveCount(1);
  await expect(atCursor).toBeInViewport();
  expect(await page.getByTestId('event-list-body').evaluate((el) => el.scrollTop)).toBeGreaterThan(1000);

  // The shared filter: one type, its fields as columns.
  await page.getByTestId('filter-type').selectOption({ label: 'sched_switch' });
  await expect(page.getByTestId('event-list-count')).toContainText(`${SWITCHES.toLocaleString('en')} events in the visible window passing the filter`);
  await expect(list.locator('[role=columnheader]')).toContainText(['time', 'CPU', 'task', 'event', 'prev_comm', 'prev_pid']);
  await twoFrames(page);
  await page.screenshot({ path: `${artifacts}event-list-switches.png` });
  expect(errors).toEqual([]);
});
