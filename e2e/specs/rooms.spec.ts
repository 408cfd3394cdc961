// Rooms (issue 8): a presenter drives, followers in other browser contexts
// follow over the room's WebSocket, detach and re-sync, answer a quiz whose
// histogram the presenter sees, and survive a killed socket without a reload.
import { test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';

interface Room { code: string; presenter_token: string; join_url: string }

/** A presenter socket driven from a page (the presenter-mode UI is covered separately). */
async function driverPage(browser: Browser, room: Room): Promise<{ ctx: BrowserContext; page: Page; send: (frame: object) => Promise<void> }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto('/api/health');
  await page.evaluate(async ({ code, token }) => {
    const ws = new WebSocket(`ws://${location.host}/api/rooms/${code}/ws?role=presenter&token=${encodeURIComponent(token)}`);
    await new Promise((resolve) => { ws.onopen = resolve; });
    (window as unknown as { driver: WebSocket }).driver = ws;
  }, { code: room.code, token: room.presenter_token });
  const send = (frame: object) => page.evaluate((f) => (window as unknown as { driver: WebSocket }).driver.send(JSON.stringify(f)), frame);
  return { ctx, page, send };
}

async function follower(browser: Browser, code: string): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const page = await ctx.newPage();
  const errors = recordConsoleErrors(page);
  await page.goto(`/room/${code}`);
  await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  return { ctx, page, errors };
}

const position = (step: number) => ({ lesson: 'mm_cid', step, toggles: {} });

test('join by code; the follower follows, detaches, re-syncs, and reconnects after its socket is killed', async ({ browser, request }) => {
  const room: Room = await (await request.post('/api/rooms', { data: { lesson: 'mm_cid' } })).json();
  const driver = await driverPage(browser, room);

  const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const page = await ctx.newPage();
  const errors = recordConsoleErrors(page);
  await page.goto('/join');
  await page.getByTestId('join-code').fill('ZZZZZZ'); // Z is not in the codes' alphabet (looks like 2)
  await page.getByTestId('join-submit').click();
  await expect(page.getByTestId('join-error')).toHaveText('A room code is 6 letters and digits, like ACK43M.');
  await page.getByTestId('join-code').fill('TTTTTT');
  await page.getByTestId('join-submit').click();
  await expect(page.getByTestId('join-error')).toHaveText('No room TTTTTT: check the code, or the room has ended.');
  await page.getByTestId('join-code').fill(room.code.toLowerCase().replace(/(...)/, '$1-'));
  await page.getByTestId('join-submit').click();
  await expect(page).toHaveURL(new RegExp(`/room/${room.code}$`));
  errors.length = 0; // the 404 of the TTTTTT lookup above was expected
  await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  await expect(page.getByTestId('follow-mode')).toHaveText('Waiting for the presenter to start…');

  for (const step of [0, 1, 2]) await driver.send({ type: 'state', state: position(step) });
  await expect(page.getByTestId('follow-mode')).toHaveText('Following the presenter — step 3');
  await expect(page.getByTestId('follower-step')).toHaveText('3');

  // Detach: the student moves on their own; the presenter's steps still arrive but are not applied.
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('follow-banner')).toHaveAttribute('data-detached', 'true');
  await expect(page.getByTestId('follower-step')).toHaveText('2');
  await driver.send({ type: 'state', state: position(4) });
  await expect(page.getByTestId('follow-mode')).toHaveText('Exploring on your own — the presenter is on step 5');
  await expect(page.getByTestId('follower-step')).toHaveText('2');
  await page.screenshot({ path: `${artifacts}rooms-follower-detached.png` });
  await page.getByTestId('room-resync').click();
  await expect(page.getByTestId('follower-step')).toHaveText('5');
  await expect(page.getByTestId('follow-banner')).toHaveAttribute('data-detached', 'false');

  // Kill the follower's socket: it reconnects by itself and catches up on what it missed.
  const marker = await page.evaluate(() => { (window as unknown as { marker: number }).marker = 42; return 42; });
  await page.evaluate(() => (window as unknown as { __kscopeRoom: { dropSocket(): void } }).__kscopeRoom.dropSocket());
  await driver.send({ type: 'state', state: position(6) }); // sent while the follower may be away
  await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  await expect(page.getByTestId('follower-step')).toHaveText('7');
  expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(marker); // no reload
  await page.screenshot({ path: `${artifacts}rooms-follower-following.png` });
  expect(errors).toEqual([]);
  await ctx.close();
  await driver.ctx.close();
});
