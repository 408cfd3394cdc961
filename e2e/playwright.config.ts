// Playwright against the server `npm start` runs (`kscope serve`), started here
// on its own port so a developer's running app is never reused by mistake.
// Debian's Chromium only: Playwright cannot download browsers on these machines.
import { defineConfig } from '@playwright/test';

const port = Number(process.env.KSCOPE_E2E_PORT ?? 8765);

export default defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  timeout: 30_000,
  retries: 0,
  workers: 1,
  reporter: 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1600, height: 1000 },
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  webServer: {
    command: `../.venv/bin/kscope serve --host 127.0.0.1 --port ${port}`,
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 30_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
