import { defineConfig, devices } from '@playwright/test';
import { BASE_URL_ENV } from './e2e/server-env';

/** Debian's Chromium (Playwright cannot download its own here), headless. */
const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
  ],
};

/**
 * End-to-end tests against the real bff + embedded sandbox serving web/dist.
 * Global setup starts the server on free ports and sets E2E_BASE_URL before the workers start,
 * which load this file again and so pick it up as `baseURL`.
 */
export default defineConfig({
  testDir: './e2e',
  outputDir: './test-results',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL: process.env[BASE_URL_ENV],
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    // the carousel does not auto-rotate under reduced motion: stable assertions
    contextOptions: { reducedMotion: 'reduce' },
  },
  projects: [
    {
      name: 'chromium',
      use: { ...devices['Desktop Chrome'], launchOptions: CHROMIUM },
    },
    {
      // The shopping path on a phone (touch, a 412 px viewport, the mobile header): the specs a
      // visitor on a phone goes through to buy. Desktop-only steps skip themselves there.
      name: 'mobile',
      testMatch: /\/(catalogue|cart|checkout)\.spec\.ts$/,
      use: { ...devices['Pixel 7'], launchOptions: CHROMIUM },
    },
  ],
});
