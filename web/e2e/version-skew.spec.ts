import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { distDir } from './server-env';
import { freePorts, startBff, stopBff, type BffProcess } from './support/bff-process';
import { expect, test } from './support/frame';
import { gotoHydrated, waitForHydration } from './support/hydration';
import { renamedBuild } from './support/renamed-build';

const ADMIN_TOKEN = 'version-skew-e2e-admin-token-0123456789';

/** The ports builds A and B share (server, admin, sandbox): one origin for the open tab. */
type Ports = [number, number, number];

async function threePorts(): Promise<Ports> {
  const [server = 0, admin = 0, sandbox = 0] = await freePorts(3);
  return [server, admin, sandbox];
}

/**
 * A deploy under an open tab, in real Chromium: a page loaded from build A stays open while the
 * server moves to build B (A's dist copied with every hash renamed). Inside the rollout window
 * A's chunks are still served; once a control closes it, a click on a lazy route still lands on
 * its page: the failed chunk load becomes one full navigation to the destination (build B).
 * The servers are this test's own, on ports of its own (the shared e2e server stays as it is).
 */
test.describe('version skew', () => {
  let work: string;
  let buildB: string;
  let renames: Map<string, string>;
  let running: BffProcess | undefined;

  test.beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'storefront-skew-'));
    buildB = join(work, 'dist-b');
    renames = await renamedBuild(distDir, buildB);
  });

  test.afterEach(async () => {
    if (running) await stopBff(running);
    running = undefined;
  });

  test.afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /** Build A's lazily loaded chunk for `route` (e.g. `dealer-locator`). */
  async function chunkOf(route: string): Promise<string> {
    const names = await readdir(join(distDir, 'assets'));
    const chunk = names.find((name) => name.startsWith(`${route}-`) && name.endsWith('.js'));
    if (!chunk) throw new Error(`no ${route} chunk in ${distDir}/assets: ${names.join(', ')}`);
    return chunk;
  }

  async function serve(name: string, dist: string, ports: Ports, env: Record<string, string> = {}) {
    const [server, admin, sandbox] = ports;
    const dataDir = join(work, `data-${name}`);
    await mkdir(dataDir, { recursive: true });
    running = await startBff({
      ports: { server, admin, sandbox },
      dataDir,
      distDir: dist,
      logFile: join(work, `bff-${name}.log`),
      env: { BFF_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
    });
    return running;
  }

  /**
   * Build A's home page, open in the tab and hydrated: the links below must be build A's router
   * links (a click before hydration is a plain navigation to build B and proves nothing).
   */
  async function openFromBuildA(page: Page, ports: Ports): Promise<BffProcess> {
    const a = await serve('a', distDir, ports);
    await gotoHydrated(page, `${a.baseURL}/`);
    await expect(page.getByRole('heading', { name: 'Built for the Long Range' })).toBeVisible();
    await stopBff(a);
    running = undefined;
    return a;
  }

  test('inside the window A’s chunks are served; after the admin call closes it, a lazy route still opens (build B)', async ({
    page,
  }) => {
    const ports = await threePorts();
    const aChunk = await chunkOf('dealer-locator');
    const bChunk = renames.get(aChunk);
    expect(bChunk).toBeDefined();
    await openFromBuildA(page, ports);

    const b = await serve('b', buildB, ports, { BFF__WEB__PREVIOUS_DIST_DIRS: JSON.stringify([distDir]) });
    const inWindow = await page.request.get(`${b.baseURL}/assets/${aChunk}`);
    expect(inWindow.status()).toBe(200);
    expect(inWindow.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await page.request.get(`${b.baseURL}/assets/${String(bChunk)}`)).status()).toBe(200);

    const closed = await page.request.post(`${b.adminURL}/admin/web/rollout/close`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(closed.status()).toBe(200);
    const gone = await page.request.get(`${b.baseURL}/assets/${aChunk}`);
    expect(gone.status()).toBe(404);
    expect(gone.headers()['content-type']).toMatch(/^text\/plain/);
    expect(gone.headers()['cache-control']).toBe('no-store');

    // the tab still runs build A: its dealer-locator chunk is gone, the click still lands there
    const chunkRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/assets/dealer-locator-')) chunkRequests.push(request.url());
    });
    await page.getByRole('link', { name: 'Dealer locator' }).first().click();
    await expect(page.getByRole('heading', { level: 1, name: 'Dealer Locator' })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/dealer-locator');
    // A's chunk failed, then build B's document loaded B's (B's server-rendered heading shows
    // before its boot script asks for the chunk, once the first screen has painted)
    expect(chunkRequests.some((url) => url.endsWith(aChunk))).toBe(true);
    await expect.poll(() => chunkRequests.some((url) => url.endsWith(String(bChunk)))).toBe(true);
    await expect(page.getByText('Unexpected Application Error!')).toHaveCount(0);
  });

  test('with a window of 0, A’s chunks are gone at once, and the sign-in link still opens its page', async ({
    page,
  }) => {
    const ports = await threePorts();
    const aChunk = await chunkOf('login');
    await openFromBuildA(page, ports);

    const b = await serve('b0', buildB, ports, {
      BFF__WEB__PREVIOUS_DIST_DIRS: JSON.stringify([distDir]),
      BFF__WEB__PREVIOUS_ASSETS_WINDOW: '0s',
    });
    expect((await page.request.get(`${b.baseURL}/assets/${aChunk}`)).status()).toBe(404);

    await page.getByRole('link', { name: 'Sign in' }).first().click();
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome Back' })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/login');
    // build B's document shows its heading before its app has loaded; the page works once B's
    // app has taken it over (and the test ends, stopping B, only then)
    await waitForHydration(page);
  });
});
