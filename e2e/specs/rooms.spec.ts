// Rooms (issue 8), two or more browser contexts against one `kscope serve`:
// the presenter starts a room in presenter mode and steps, a follower who
// joined by code follows, detaches and re-syncs, survives a killed socket
// without a reload; three followers answer a quiz, the presenter's histogram
// counts them, and the reveal reaches them.
import { test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { artifacts, recordConsoleErrors } from './page_helper';
import { LESSON, QUIZ_STEPS } from './lesson_helper';

const player = (page: Page) => page.getByTestId('lesson-player');

/** Waits until the lesson player shows step `step` (0-based) with the model's runs drawn. */
async function atStep(page: Page, step: number): Promise<void> {
  await expect(player(page)).toHaveAttribute('data-step', String(step));
  await expect(player(page)).toHaveAttribute('data-ready', 'true', { timeout: 20_000 });
}

async function presenter(browser: Browser, step: number): Promise<{ ctx: BrowserContext; page: Page; code: string; joinUrl: string; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await ctx.newPage();
  const errors = recordConsoleErrors(page);
  await page.goto(`/present/${LESSON}?step=${step}`);
  await atStep(page, step);
  await page.getByTestId('room-start').click();
  const code = (await page.getByTestId('room-code').textContent()) ?? '';
  expect(code).toMatch(/^[ACDEFGHJKMNPQRTWXY34679]{6}$/);
  // The QR and the join URL open on demand over the stage; Esc closes them.
  await page.getByTestId('room-qr-open').click();
  const joinUrl = (await page.getByTestId('room-join-url').getAttribute('href')) ?? '';
  expect(joinUrl).toBe(`${new URL(page.url()).origin}/room/${code}`);
  await expect(page.getByTestId('room-qr')).toHaveAttribute('data-encoded', joinUrl); // the QR carries the join URL
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('room-qr-window')).toHaveCount(0);
  await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  return { ctx, page, code, joinUrl, errors };
}

async function follower(browser: Browser, url: string, viewport = { width: 1200, height: 800 }): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await browser.newContext({ viewport });
  const page = await ctx.newPage();
  const errors = recordConsoleErrors(page);
  await page.goto(url);
  if (url.startsWith('/room/') && !url.includes('TTTTTT')) await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  return { ctx, page, errors };
}

test('presenter steps and the follower follows, detaches, re-syncs, and catches up after its socket is killed', async ({ browser }) => {
  test.setTimeout(120_000);
  const p = await presenter(browser, 0);

  // A room that does not exist (or expired) says so and stops retrying.
  const f = await follower(browser, '/room/TTTTTT');
  await expect(f.page.getByTestId('room-status')).toHaveAttribute('data-status', 'closed');
  await expect(f.page.getByTestId('follow-banner')).toContainText('no room TTTTTT: it expired or never existed');

  // Join by code, typed the way people type it.
  await f.page.goto('/join');
  await f.page.getByTestId('join-code').fill('ZZZZZZ'); // Z is not in the alphabet (looks like 2)
  await f.page.getByTestId('join-submit').click();
  await expect(f.page.getByTestId('join-error')).toHaveText('A room code is 6 letters and digits, like ACK43M.');
  await f.page.getByTestId('join-code').fill(`${p.code.slice(0, 3).toLowerCase()}-${p.code.slice(3)}`);
  await f.page.getByTestId('join-submit').click();
  await expect(f.page).toHaveURL(new RegExp(`/room/${p.code}$`));
  await expect(f.page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  await atStep(f.page, 0);
  await expect(p.page.getByTestId('room-followers')).toHaveText('1');

  // The presenter steps with the keyboard; the follower follows.
  await p.page.keyboard.press('ArrowRight');
  await p.page.keyboard.press('ArrowRight');
  await atStep(p.page, 2);
  await atStep(f.page, 2);
  await expect(f.page.getByTestId('follow-mode')).toHaveText('Following the presenter — step 3');
  await expect(f.page.getByTestId('lp-title')).toHaveText(await p.page.getByTestId('lp-title').textContent() ?? '');

  // Detach: the student goes back on their own; the presenter moves on without them.
  await f.page.keyboard.press('ArrowLeft');
  await atStep(f.page, 1);
  await expect(f.page.getByTestId('follow-banner')).toHaveAttribute('data-detached', 'true');
  await p.page.keyboard.press('ArrowRight');
  await atStep(p.page, 3);
  await expect(f.page.getByTestId('follow-mode')).toHaveText('Exploring on your own — the presenter is on step 4');
  await atStep(f.page, 1);
  await f.page.screenshot({ path: `${artifacts}rooms-follower-detached.png` });
  await f.page.getByTestId('room-resync').click();
  await atStep(f.page, 3);
  await expect(f.page.getByTestId('follow-banner')).toHaveAttribute('data-detached', 'false');
  await f.page.keyboard.press('ArrowLeft'); // and R re-syncs from the keyboard
  await atStep(f.page, 2);
  await f.page.keyboard.press('r');
  await atStep(f.page, 3);

  // Kill the follower's socket; the presenter moves while it is away; it reconnects and catches up, no reload.
  await f.page.evaluate(() => { (window as unknown as { marker: string }).marker = 'same page'; });
  await f.page.evaluate(() => (window as unknown as { __kscopeRoom: { dropSocket(): void } }).__kscopeRoom.dropSocket());
  await p.page.keyboard.press('ArrowRight');
  await p.page.keyboard.press('ArrowRight');
  await atStep(p.page, 5);
  await expect(f.page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  await atStep(f.page, 5);
  expect(await f.page.evaluate(() => (window as unknown as { marker: string }).marker)).toBe('same page');
  await f.page.screenshot({ path: `${artifacts}rooms-follower-following.png` });
  await p.page.screenshot({ path: `${artifacts}rooms-presenter.png` });
  expect(f.errors).toEqual([]);
  expect(p.errors).toEqual([]);
  await f.ctx.close();
  await p.ctx.close();
});

test('three followers answer a quiz: the presenter sees the histogram, the reveal reaches them', async ({ browser }) => {
  test.setTimeout(150_000);
  const { step: QUIZ_STEP, id: QUIZ_ID } = QUIZ_STEPS[0]; // the default lesson's first quiz
  const p = await presenter(browser, QUIZ_STEP);
  const followers = [];
  for (let i = 0; i < 3; i++) {
    // The third student is on a phone.
    followers.push(await follower(browser, `/room/${p.code}`, i === 2 ? { width: 390, height: 844 } : undefined));
  }
  for (const f of followers) await atStep(f.page, QUIZ_STEP);
  await expect(p.page.getByTestId('room-followers')).toHaveText('3');

  // The histogram opens on demand ("Answers") over the stage.
  await p.page.getByTestId('room-answers-open').click();
  const histogram = p.page.getByTestId('quiz-histogram');
  await expect(histogram).toHaveAttribute('data-quiz', QUIZ_ID);
  const bar = (choice: string) => histogram.locator(`[data-testid="quiz-bar"][data-choice="${choice}"]`);
  await followers[0].page.getByTestId('lp-choice-0').click();
  await followers[1].page.getByTestId('lp-choice-1').click();
  await followers[2].page.getByTestId('lp-choice-1').click();
  await expect(p.page.getByTestId('quiz-total')).toHaveText('3');
  await followers[0].page.getByTestId('lp-choice-2').click(); // a student changes their mind: still 3 answers
  await expect(bar('2')).toHaveAttribute('data-count', '1');
  await expect(bar('0')).toHaveAttribute('data-count', '0');
  await expect(bar('1')).toHaveAttribute('data-count', '2');
  await expect(bar('1')).toContainText('2 (67 %)'); // counts as text, not colour alone
  await expect(p.page.getByTestId('quiz-total')).toHaveText('3');
  await expect(p.page.getByTestId('lp-tally-total')).toHaveText('3 answers from the room');
  await p.page.screenshot({ path: `${artifacts}rooms-presenter-quiz.png` });

  await expect(p.page.getByTestId('room-answers-open')).toHaveText('Answers (3)');
  await p.page.getByTestId('room-window-close').click();
  await expect(p.page.getByTestId('quiz-histogram')).toHaveCount(0);

  // Reveal the model's answer: every follower sees it, and the histogram marks it.
  await p.page.getByTestId('lp-reveal').click();
  const answer = (await p.page.getByTestId('lp-answer').getAttribute('data-answer')) ?? '';
  expect(answer).toMatch(/^\d+$/);
  for (const f of followers) await expect(f.page.getByTestId('lp-answer')).toHaveAttribute('data-answer', answer);
  await expect(p.page.getByTestId('room-revealed')).toHaveText(`revealed: ${answer}`);
  await p.page.getByTestId('room-answers-open').click();
  await expect(bar(answer)).toContainText('— answer');
  await followers[1].page.screenshot({ path: `${artifacts}rooms-follower-revealed.png` });
  await followers[2].page.getByTestId('lp-answer').scrollIntoViewIfNeeded();
  await followers[2].page.screenshot({ path: `${artifacts}rooms-follower-phone-revealed.png` });
  await p.page.screenshot({ path: `${artifacts}rooms-presenter-revealed.png` });
  // Closed again, the strip in the bar's corner keeps the code and the count.
  await p.page.keyboard.press('Escape');
  await expect(p.page.getByTestId('quiz-histogram')).toHaveCount(0);
  await expect(p.page.getByTestId('room-badge')).toHaveText(`Room ${p.code}`);
  await expect(p.page.getByTestId('room-status')).toHaveText('live · 3 following');
  for (const f of followers) {
    expect(f.errors).toEqual([]);
    await f.ctx.close();
  }
  expect(p.errors).toEqual([]);
  await p.ctx.close();
});
