// The landing page and unknown paths (issue 13). "/" says what kscope is and
// where to start (the default lesson and its step count, the trace workbench), with the
// machine's topology below, whole and on screen; a path kscope has no page for
// says "not found" and links to the pages, instead of drawing the topology.
import { test, expect } from '@playwright/test';
import { artifacts, inspectPicture, recordConsoleErrors, waitForIdle } from './page_helper';
import { LESSON, MODEL_IDS, lessonData } from './lesson_helper';

/** The link to the default lesson: its id and its step count (read from its file, as the page does). */
const START = `the ${LESSON} lesson, ${lessonData.steps.length} steps`;

for (const size of [{ width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
  test(`the landing page at ${size.width}x${size.height}: what kscope is, where to start, the topology below`, async ({ page }) => {
    const errors = recordConsoleErrors(page);
    await page.setViewportSize(size);
    await page.goto('/');
    await waitForIdle(page);
    const intro = page.getByTestId('landing-intro');
    await expect(intro).toBeVisible();
    await expect(intro).toContainText('kscope shows how the Linux kernel schedules');
    const start = page.getByTestId('start-lesson');
    await expect(start).toHaveText(START);
    await expect(start).toHaveAttribute('href', `/learn/${LESSON}`);
    await expect(page.getByTestId('landing-lessons')).toContainText(`Start here: ${START}`);
    await expect(page.getByTestId('start-traces')).toHaveAttribute('href', '/traces');
    await page.screenshot({ path: `${artifacts}landing-${size.width}-after.png` });
    // The words sit above the topology, and the topology is still whole on screen.
    const introBox = (await intro.boundingBox())!;
    const picture = await inspectPicture(page, '.topology svg', { minHeight: 200 });
    expect(picture.problems).toEqual([]);
    expect(picture.box!.y).toBeGreaterThanOrEqual(introBox.y + introBox.height - 1);
    // Both links work in the app.
    await start.click();
    await expect(page).toHaveURL(new RegExp(`/learn/${LESSON}`));
    await expect(page.getByTestId('lesson-player')).toBeVisible();
    await page.goBack();
    await page.getByTestId('start-traces').click();
    await expect(page).toHaveURL(/\/traces$/);
    await expect(page.getByTestId('upload')).toBeAttached();
    expect(errors).toEqual([]);
  });
}

test('an unknown path says "not found" and links to the pages, not the topology', async ({ page }) => {
  const errors = recordConsoleErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  for (const path of ['/nope', '/lesson/nosuchmodel', '/simulate/extra/bits', '/learn']) {
    await page.goto(path);
    const notFound = page.getByTestId('not-found');
    await expect(notFound).toBeVisible();
    await expect(notFound.locator('h2')).toHaveText(`Not found: there is no page at ${path}`);
    await expect(page.getByTestId('cpu')).toHaveCount(0);
    const hrefs = await notFound.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    // every model's lesson and page (lessons are named after their model), the first model's first
    expect(hrefs).toEqual(['/', ...MODEL_IDS.map((m) => `/learn/${m}`), ...MODEL_IDS.map((m) => `/lesson/${m}`), '/simulate', '/traces', '/join']);
    expect(hrefs.slice(1, 2)).toEqual([`/learn/${LESSON}`]);
  }
  // Nothing runs off the side (the header's page tabs included).
  const overflow = await page.evaluate(() => [...document.querySelectorAll('.app *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).map((el) => el.textContent?.slice(0, 30)));
  expect(overflow).toEqual([]);
  await page.screenshot({ path: `${artifacts}notfound-1280-after.png` });
  await page.getByTestId('not-found').getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveURL(/:\d+\/(\?preset=[\w-]+)?$/);
  await waitForIdle(page);
  await expect(page.getByTestId('landing-intro')).toBeVisible();
  expect(errors).toEqual([]);
});
