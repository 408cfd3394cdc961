// SQL in the page on a stored copy of the shipped 6.18 capture: a query's answer as a table
// (its counts checked against the trace's text), a row click moves the cursor to its ts,
// "Show as track" draws it over the lanes (the canvas changes), a refused statement shows the
// server's words, and a saved query lives in the URL (a reload lists it). 18 px text.
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { artifacts, openStored, recordConsoleErrors, twoFrames, uploadInLibrary } from './page_helper';
import { textSizes, under } from './text_size';

const TRACE = new URL('../../traces/threads4-linux6.18.txt', import.meta.url).pathname;
const TEXT = readFileSync(TRACE, 'utf-8');
const SWITCHES = TEXT.split('\n').filter((l) => l.includes(' sched_switch: ')).length;
const WAKINGS = TEXT.split('\n').flatMap((l) => {
  const m = /\s(\d+)\.(\d+): sched_waking: /.exec(l);
  return m ? [Number(m[1]) * 1e9 + Number(m[2].padEnd(9, '0'))] : [];
});

test('SQL console: a table, a row to the cursor, a track, an error, a saved query in the URL', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/traces');
  await uploadInLibrary(page, TRACE);
  await openStored(page, 'threads4-linux6.18.txt');
  const sql = page.getByTestId('sql');
  await sql.scrollIntoViewIfNeeded();

  // A count, against the text.
  await page.getByTestId('sql-input').fill("SELECT count(*) AS n FROM events WHERE type = 'sched_switch'");
  await page.getByTestId('sql-run').click();
  await expect(sql.getByTestId('sql-row')).toHaveCount(1);
  await expect(sql.getByTestId('sql-row')).toHaveText(String(SWITCHES));
  await expect(page.getByTestId('sql-track')).toBeDisabled(); // no ts: not a track

  // Wakings with a duration, by keyboard (Ctrl+Enter): 500 rows, the first ones in time order.
  await page.getByTestId('sql-input').fill("SELECT ts_ns AS ts, 20000 AS dur, cpu, task_comm AS name FROM events WHERE type = 'sched_waking' ORDER BY ts_ns LIMIT 500");
  await page.getByTestId('sql-input').press('Control+Enter');
  await expect(page.getByTestId('sql-count')).toContainText('500 rows');
  await expect(sql.getByTestId('sql-row').first().locator('td').first()).toHaveText(String(WAKINGS[0]));
  // A row click: the cursor goes to its ts (the URL says so).
  await sql.getByTestId('sql-row').nth(3).click();
  await expect(page).toHaveURL(new RegExp(`cursor=${WAKINGS[3]}(&|$)`));
  // As a track: drawn over the lanes.
  const canvas = page.getByTestId('timeline-canvas');
  await twoFrames(page);
  const before = await canvas.screenshot();
  await page.getByTestId('sql-track').click();
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-query-track', '500');
  await twoFrames(page);
  expect((await canvas.screenshot()).equals(before)).toBe(false);
  await page.screenshot({ path: `${artifacts}sql-track-1280.png` });
  await sql.scrollIntoViewIfNeeded();
  expect(under(await textSizes(page, '[data-testid="sql"]'), 18)).toEqual([]);

  // Saved: in the URL; a fresh page from the link lists it.
  await page.getByTestId('sql-save').click();
  await expect(page).toHaveURL(/sql=SELECT/);
  const url = page.url();
  // A statement that is not a SELECT: the server's refusal, in its words.
  await page.getByTestId('sql-input').fill('DELETE FROM events');
  await page.getByTestId('sql-run').click();
  await expect(page.getByTestId('sql-error')).toBeVisible();
  await expect(page.getByTestId('sql-error')).not.toBeEmpty();
  await page.goto(url);
  const saved = "SELECT ts_ns AS ts, 20000 AS dur, cpu, task_comm AS name FROM events WHERE type = 'sched_waking' ORDER BY ts_ns LIMIT 500";
  await expect(page.getByTestId('sql-saved').getByRole('button').first()).toHaveAttribute('title', saved);
  await expect(page.getByTestId('sql-input')).toHaveValue(saved);
  await page.screenshot({ path: `${artifacts}sql-saved.png` });

  await page.getByTestId('close-trace').click();
  page.once('dialog', (d) => d.accept());
  await page.getByTestId('trace-row').filter({ hasText: 'threads4-linux6.18.txt' }).first().getByRole('button', { name: 'Delete' }).click();
  expect(errors.filter((e) => !e.includes('400'))).toEqual([]);
});
