// Presenter mode fits a projector (issue 8): every step of the default lesson (lesson_helper.ts) at
// 1280x720 and 1920x1080, with a room started and without, with no scrolling. The step
// navigation (Back, the step numbers, Next) and a quiz's Reveal button are inside the
// viewport; no element of the page overflows sideways, and neither the stage nor the
// words column needs a scroll bar. Issue 13, item 4: no visible text under 18 px
// anywhere on the page, the lesson picture's own labels included (font size times
// every transform's scale, and for SVG text the drawing's screen matrix, cross-checked
// against its viewBox ratio: text_size.ts); the picture fills the stage (at 1920x1080
// more than a third of the width); with a room started the room is a strip in the bar's
// corner and every quiz choice and Reveal stay on screen.
// Screenshots of every step land in e2e/artifacts/ (present-fit-<w>[-room]-stepNN.png),
// the smallest text sizes seen in e2e/artifacts/present-fit-minima.json.
import { test, expect, type Page } from '@playwright/test';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { artifacts, inspectPicture, recordConsoleErrors } from './page_helper';
import { disagreements, smallest, textSizes, under } from './text_size';
import { LESSON, WIDEST_QUIZ, lessonData } from './lesson_helper';

/** The projector rule: no text under this, picture included (BRIEF, issue 13). */
const MIN_PX = 18;
const PICTURE = '[data-testid="lp-stage"] .lesson-picture';

/** Every visible text on the page at >= 18 px; the SVG measurements agree with each other. */
async function expectProjectorText(page: Page, where: string, minima: Minima): Promise<void> {
  const all = await textSizes(page, '.present-page');
  expect(all.length, `${where}: some text measured`).toBeGreaterThan(5);
  expect(disagreements(all), `${where}: SVG text measured two ways`).toEqual([]);
  const pic = await page.locator(PICTURE).count() ? await textSizes(page, PICTURE) : [];
  if (pic.length) {
    // the picture's labels are measured (the test looks at them, not past them)
    expect(pic.filter((t) => t.svg).length, `${where}: the picture's SVG labels measured`).toBeGreaterThan(10);
    note(minima, 'picture', smallest(pic), where);
  }
  note(minima, 'page', smallest(all), where);
  expect.soft(under(all, MIN_PX), `${where}: text under ${MIN_PX} px`).toEqual([]);
}

type Minima = Record<string, { px: number; text: string; where: string }>;
function note(minima: Minima, key: string, s: { px: number; text: string }, where: string): void {
  if (!minima[key] || s.px < minima[key].px) minima[key] = { px: Math.round(s.px * 10) / 10, text: s.text, where };
}
/** Keeps the smallest sizes of each run in e2e/artifacts/present-fit-minima.json (for the report). */
function saveMinima(run: string, minima: Minima): void {
  const file = `${artifacts}present-fit-minima.json`;
  const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  all[run] = minima;
  writeFileSync(file, JSON.stringify(all, null, 2));
}

async function waitForStep(page: Page, step: number): Promise<void> {
  await expect(page.getByTestId('lesson-player')).toHaveAttribute('data-step', String(step));
  await expect(page.getByTestId('lp-digest')).toHaveText(/^step \d+ · t=\d+ ns · v6\.1\d: /, { timeout: 20_000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
}

/** Asserts the element's whole box lies inside the viewport. */
async function expectInViewport(page: Page, testid: string, size: { width: number; height: number }, where: string): Promise<void> {
  const box = await page.getByTestId(testid).boundingBox();
  expect(box, `${where}: ${testid} is rendered`).not.toBeNull();
  const b = box!;
  expect.soft(b.x, `${where}: ${testid} left edge`).toBeGreaterThanOrEqual(0);
  expect.soft(b.y, `${where}: ${testid} top edge`).toBeGreaterThanOrEqual(0);
  expect.soft(b.x + b.width, `${where}: ${testid} right edge`).toBeLessThanOrEqual(size.width + 0.5);
  expect.soft(b.y + b.height, `${where}: ${testid} bottom edge`).toBeLessThanOrEqual(size.height + 0.5);
}

/** Elements that scroll or clip sideways, and scroll boxes that need a vertical scroll bar. */
function overflowReport(): string[] {
  const out: string[] = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) out.push(`page is ${doc.scrollWidth}px wide in a ${doc.clientWidth}px window`);
  if (doc.scrollHeight > doc.clientHeight + 1) out.push(`page is ${doc.scrollHeight}px tall in a ${doc.clientHeight}px window`);
  const name = (el: Element) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''}`;
  for (const el of document.querySelectorAll('.present-page *')) {
    const e = el as HTMLElement
    const s = getComputedStyle(e);
    if (s.display === 'none' || e.classList.contains('visually-hidden')) continue;
    // a one-line label cut with an ellipsis and its full text on hover (the bar's lesson title) is by design
    const ellipsis = s.textOverflow === 'ellipsis' && e.hasAttribute('title');
    if (e.scrollWidth > e.clientWidth + 1 && s.overflowX !== 'visible' && !ellipsis) out.push(`${name(e)} overflows sideways (${e.scrollWidth} > ${e.clientWidth})`);
    if (e.scrollHeight > e.clientHeight + 1 && (s.overflowY === 'auto' || s.overflowY === 'scroll')) {
      out.push(`${name(e)} needs a vertical scroll (${e.scrollHeight} > ${e.clientHeight})`);
    }
  }
  // anything drawn past the right edge of the window
  for (const el of document.querySelectorAll('.present-page *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > window.innerWidth + 1) out.push(`${name(el)} ends at x=${Math.round(r.right)} past ${window.innerWidth}`);
  }
  return out.slice(0, 12);
}

for (const size of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) for (const room of [false, true]) {
  test(`presenter mode${room ? ' with a room' : ''}: every step fits ${size.width}x${size.height} without scrolling, no text under 18 px`, async ({ page }) => {
    test.setTimeout(room ? 150_000 : 330_000);
    const errors = recordConsoleErrors(page);
    const minima: Minima = {};
    const shot = `${size.width}${room ? '-room' : ''}`;
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.setViewportSize(size);
    await page.goto(`/present/${LESSON}?step=0`);
    await waitForStep(page, 0);
    if (room) {
      await page.getByTestId('room-start').click();
      await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
      await expect(page.getByTestId('room-code')).toBeVisible();
    }
    const steps = await page.locator('.lp-dots button').count();
    expect(steps).toBe(lessonData.steps.length);
    const quizSteps: number[] = [];
    for (let i = 0; i < steps; i++) {
      if (i > 0) {
        await page.keyboard.press('ArrowRight');
        await waitForStep(page, i);
      }
      const where = `${size.width}x${size.height}${room ? ' (room)' : ''} step ${i + 1}`;
      // A view other than the picture is scaled to fill the stage (FitBox): the fit has
      // settled, the scale does not keep changing (no resize ping-pong; a redraw a frame
      // later may move it by a hair), and never below 1 (its type is 18 px and up).
      if ((await page.getByTestId('lp-stage-fit').getAttribute('data-scale')) !== null) {
        const scales: number[] = [];
        for (let k = 0; k < 3; k++) {
          await page.waitForTimeout(150);
          scales.push(Number(await page.getByTestId('lp-stage-fit').getAttribute('data-scale')));
        }
        expect(Math.min(...scales), where).toBeGreaterThanOrEqual(1);
        expect(Math.max(...scales) - Math.min(...scales), `${where}: the stage's scale settled (${scales})`).toBeLessThanOrEqual(0.01);
      } else {
        // The picture is on the stage: drawn, uncovered, and filling the stage's width or height.
        await page.waitForTimeout(150);
        const pic = await inspectPicture(page, '[data-testid="lp-stage"] .lesson-picture svg', { minWidth: 300, minHeight: 200 });
        expect(pic.problems, where).toEqual([]);
        const stage = (await page.getByTestId('lp-stage').boundingBox())!;
        const fills = pic.box!.width >= 0.85 * stage.width || pic.box!.height >= 0.6 * stage.height;
        expect(fills, `${where}: picture ${Math.round(pic.box!.width)}x${Math.round(pic.box!.height)} in a ${Math.round(stage.width)}x${Math.round(stage.height)} stage`).toBe(true);
        if (size.width === 1920) expect(pic.box!.width, `${where}: more than a third of the width`).toBeGreaterThan(1920 / 3 + 100);
      }
      await page.screenshot({ path: `${artifacts}/present-fit-${shot}-step${String(i + 1).padStart(2, '0')}.png` });
      await expectProjectorText(page, where, minima);
      await expectInViewport(page, 'lp-back', size, where);
      await expectInViewport(page, 'lp-next', size, where);
      await expectInViewport(page, 'lp-dots', size, where);
      await expectInViewport(page, 'lp-title', size, where);
      if ((await page.getByTestId('lp-quiz').count()) > 0) {
        quizSteps.push(i);
        await expectInViewport(page, 'lp-reveal', size, where);
        // answered and revealed, the answer box fits too
        await page.locator('.lp-choice').first().click();
        await page.getByTestId('lp-reveal').click();
        await expect(page.getByTestId('lp-answer')).toBeVisible();
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
        await page.screenshot({ path: `${artifacts}/present-fit-${shot}-step${String(i + 1).padStart(2, '0')}-revealed.png` });
        await expectInViewport(page, 'lp-answer', size, `${where} (revealed)`);
        await expectProjectorText(page, `${where} (revealed)`, minima);
        await expectInViewport(page, 'lp-next', size, `${where} (revealed)`);
        // polled: a layout change is seen by the page a task before FitBox's ResizeObserver refits
        await expect.poll(() => page.evaluate(overflowReport), { message: `${where} (revealed)`, timeout: 3_000 }).toEqual([]);
      }
      if ((await page.locator('.lp-toggle').count()) > 0) await expectInViewport(page, (await page.locator('.lp-toggle').first().getAttribute('data-testid'))!, size, where);
      // The step's other views (a tab away) are projector views too: 18 px and up, the drawings
      // inside a scaled view (the cost chart) included. Then back to the default view.
      if (!room) {
        const tabs = await page.locator('[data-testid="lp-view-tabs"] [role="tab"][data-testid^="lp-view-"]').all();
        for (const tab of tabs.slice(1)) {
          const id = (await tab.getAttribute('data-testid'))!;
          await tab.click();
          await expect(tab).toHaveAttribute('aria-selected', 'true');
          await page.waitForTimeout(200); // FitBox refits a frame after the view draws
          await expect.poll(() => page.evaluate(overflowReport), { message: `${where} ${id}`, timeout: 3_000 }).toEqual([]);
          await expectProjectorText(page, `${where} ${id}`, minima);
        }
        if (tabs.length > 1) {
          await tabs[0].click();
          await expect(tabs[0]).toHaveAttribute('aria-selected', 'true');
        }
      }
      await expect.poll(() => page.evaluate(overflowReport), { message: where, timeout: 3_000 }).toEqual([]);
    }
    saveMinima(`${size.width}x${size.height}${room ? ' room' : ''}`, minima);
    expect(quizSteps.length).toBeGreaterThanOrEqual(3);
    if (room) await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
    expect(errors).toEqual([]);
  });
}

test('presenter mode with a room at 1280x720: the room is a corner strip, every choice and Reveal on screen, the picture on the stage', async ({ page }) => {
  test.setTimeout(60_000);
  const errors = recordConsoleErrors(page);
  const size = { width: 1280, height: 720 };
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.setViewportSize(size);
  await page.goto(`/present/${LESSON}?step=${WIDEST_QUIZ.step}`); // the quiz with the most choices (8 in the first lesson)
  await waitForStep(page, WIDEST_QUIZ.step);
  await page.getByTestId('room-start').click();
  await expect(page.getByTestId('room-status')).toHaveAttribute('data-status', 'open');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
  await page.screenshot({ path: `${artifacts}item4-present-room-1280-step05-after.png` });
  // The strip sits in the top bar's right-hand corner: one line, nothing of the stage taken.
  const strip = (await page.getByTestId('room-panel').boundingBox())!;
  const bar = (await page.locator('.present-bar').boundingBox())!;
  expect(strip.y).toBeGreaterThanOrEqual(bar.y - 1);
  expect(strip.y + strip.height).toBeLessThanOrEqual(bar.y + bar.height + 1);
  expect(strip.height).toBeLessThanOrEqual(60);
  await expect(page.getByTestId('room-code')).toBeVisible();
  await expect(page.getByTestId('room-status')).toHaveText('live · 0 following');
  await expect(page.getByTestId('room-qr')).toHaveCount(0); // the QR only on demand
  for (const c of Array.from({ length: WIDEST_QUIZ.choices }, (_, i) => String(i))) await expectInViewport(page, `lp-choice-${c}`, size, `choice ${c}`);
  await expectInViewport(page, 'lp-reveal', size, 'Reveal');
  const pic = await inspectPicture(page, '[data-testid="lp-stage"] .lesson-picture svg', { minWidth: 500, minHeight: 300 });
  expect(pic.problems).toEqual([]);
  await expectProjectorText(page, '1280x720 room step 5', {});
  // The QR on demand: over the stage, large, and closed again with Esc.
  await page.getByTestId('room-qr-open').click();
  const qr = (await page.getByTestId('room-qr').boundingBox())!;
  expect(qr.width).toBeGreaterThanOrEqual(280);
  await page.screenshot({ path: `${artifacts}item4-present-room-1280-qr-after.png` });
  expect(under(await textSizes(page, '.room-window'), MIN_PX)).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('room-qr-window')).toHaveCount(0);
  await page.getByTestId('room-answers-open').click();
  await expect(page.getByTestId('quiz-histogram')).toBeVisible();
  expect(under(await textSizes(page, '.room-window'), MIN_PX)).toEqual([]);
  await page.keyboard.press('Escape');
  await page.getByTestId('room-panel').getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByTestId('room-start')).toBeVisible();
  expect(errors).toEqual([]);
});
