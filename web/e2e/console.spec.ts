import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { consoleDir, startConsoleFleet, stopConsoleFleet, type ConsoleFleet } from './support/console-fleet';
import { expectNoAxeViolations } from './support/frame';

const TOKEN = 'console-e2e-admin-token-0123456789abcdef';
const DASHBOARD = 'https://grafana.example/d/storefront-bff';
/** The documented convergence bound of a live override (2 s), with room for two busy cores. */
const CONVERGENCE_MS = 5_000;

/**
 * The operators' console in real Chromium against three replicas sharing one Redis: the
 * console's own strict CSP in force, the token in memory only, every step through the UI, and
 * its effect read back from the replicas' admin API.
 */
test.describe('the console', () => {
  test.describe.configure({ mode: 'serial' });
  let fleet: ConsoleFleet | undefined;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    if (!existsSync(join(consoleDir, 'index.html'))) {
      throw new Error(`${consoleDir}/index.html not found: run \`npm run build:console\` in web/ first`);
    }
    fleet = await startConsoleFleet(TOKEN, { BFF__ADMIN__DASHBOARD_URL: DASHBOARD });
    const first = replica(0);
    await expect
      .poll(async () => (await adminJson<{ replicas: { silent: boolean }[] }>(first, '/admin/fleet')).replicas.length, {
        timeout: 15_000,
      })
      .toBe(3);
  });

  test.afterAll(async () => {
    if (fleet) await stopConsoleFleet(fleet);
  });

  function replica(index: number): string {
    const found = fleet?.replicas[index];
    if (!found) throw new Error(`no replica ${String(index)}`);
    return found.adminURL;
  }

  test('an operator signs in, sees the fleet, explains a key, purges and reads the receipt and the audit log', async ({
    page,
  }) => {
    const problems = watchForProblems(page);
    // a page the replicas cached, for the inspector
    expect((await fetch(`${fleet?.replicas[0]?.baseURL ?? ''}/`)).status).toBe(200);

    const answer = await page.goto(`${replica(0)}/admin/console/`);
    const csp = answer?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');

    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('401');
    await expectNoAxeViolations(page);

    await signIn(page);
    // the token is in memory only: nothing stored, no cookie
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie.length])).toEqual([
      0, 0, 0,
    ]);

    const fleetView = page.getByRole('region', { name: 'Fleet' });
    const replicas = fleetView.getByRole('table', { name: /^Replicas \(3\)/ });
    await expect(replicas).toBeVisible();
    for (const pod of ['bff-a', 'bff-b', 'bff-c']) {
      await expect(replicas.getByRole('rowheader', { name: new RegExp(`^${pod}`) })).toBeVisible();
    }
    await expect(fleetView).toContainText('Build drift');

    const cache = page.getByRole('region', { name: 'Cache' });
    await expect(cache.getByRole('table', { name: /Hit ratio per route/ })).toBeVisible();
    await expect(cache.getByRole('link', { name: /Grafana dashboard/ })).toHaveAttribute('href', DASHBOARD);
    await expect(cache.getByRole('table', { name: 'Tags that missed most' })).toContainText('page:home');

    const inspector = page.getByRole('region', { name: 'Key inspector' });
    await inspector.getByLabel('Page or API URL').fill('/');
    await inspector.getByRole('button', { name: 'Explain' }).click();
    const explanation = inspector.getByRole('status', { name: 'Explanation' });
    await expect(explanation.getByRole('rowheader', { name: 'pages:home' })).toBeVisible();

    const purge = page.getByRole('region', { name: 'Purge' });
    await purge.getByLabel('Tags').fill('page:home');
    await purge.getByRole('button', { name: 'Purge', exact: true }).click();
    const receipt = purge.getByRole('status', { name: 'Purge receipt' });
    await expect(receipt).toContainText('complete, 3 replicas confirmed');
    await expect(receipt.getByRole('table', { name: 'Receipts' }).getByRole('row')).toHaveCount(4);

    const audit = page.getByRole('region', { name: 'Audit log' });
    await audit.getByRole('button', { name: 'Refresh the audit log' }).click();
    await expect(audit.getByRole('row', { name: /admin POST \/admin\/cache\/purge 200/ })).toBeVisible();

    await expectNoAxeViolations(page);
    expect(problems).toEqual([]);
  });

  test('an operator changes a TTL: dry run and diff, a canary, then the fleet, then a rollback', async ({ page }) => {
    const overrides = await fetch(`${replica(0)}/admin/config/overrides`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(overrides.status).toBe(200);
    const problems = watchForProblems(page);
    const fileTtl = await ttlOf(replica(0));
    expect(fileTtl.source).not.toBe('override');

    await page.goto(`${replica(0)}/admin/console/`);
    await signIn(page);
    const editor = page.getByRole('region', { name: 'Policy editor' });
    const change = editor.getByRole('form', { name: 'Change a policy' });
    const result = editor.getByRole('status', { name: 'Policy change result' });
    await change.getByLabel('Key', { exact: true }).selectOption('cache.product.ttl');
    await change.getByLabel('New value').fill('30s');

    // dry run: the diff, and nothing changes anywhere
    await change.getByRole('button', { name: 'Dry run' }).click();
    await expect(result).toContainText('Dry run: nothing changed');
    await expect(result.getByRole('row', { name: /cache\.product\.ttl .*30s/ })).toBeVisible();
    for (const index of [0, 1, 2]) expect(await ttlOf(replica(index))).toEqual(fileTtl);

    // a canary: bff-b only
    await change.getByLabel('Apply to').selectOption({ label: 'canary: bff-b' });
    await change.getByRole('button', { name: 'Apply' }).click();
    await expect(result).toContainText('Applied to canary');
    const canary = replica(1);
    await expect.poll(async () => (await ttlOf(canary)).value, { timeout: CONVERGENCE_MS }).toBe('30s');
    expect((await ttlOf(canary)).source).toBe('override');
    for (const index of [0, 2]) expect(await ttlOf(replica(index))).toEqual(fileTtl);

    // then the fleet
    await editor.getByRole('button', { name: 'Promote the canary to the fleet' }).click();
    await expect(result).toContainText('Promoted to the fleet');
    for (const index of [0, 1, 2]) {
      await expect.poll(async () => (await ttlOf(replica(index))).value, { timeout: CONVERGENCE_MS }).toBe('30s');
    }

    // and back
    await editor.getByRole('form', { name: 'Roll back' }).getByRole('button', { name: 'Roll back' }).click();
    await expect(result).toContainText('Rolled back to the previous version');
    for (const index of [0, 1, 2]) {
      await expect.poll(async () => ttlOf(replica(index)), { timeout: CONVERGENCE_MS }).toEqual(fileTtl);
    }

    await expectNoAxeViolations(page);
    expect(problems).toEqual([]);
  });
});

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Admin token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // focus lands on the console's heading once signed in
  await expect(page.getByRole('heading', { level: 1, name: 'BFF console' })).toBeFocused();
}

/** Uncaught errors and CSP violations in the page: the console must run under its own policy. */
function watchForProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  return problems;
}

async function adminJson<T>(adminURL: string, path: string): Promise<T> {
  const response = await fetch(`${adminURL}${path}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(5_000),
  });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/** `cache.product.ttl` as a replica's `/admin/config` has it in force: value and source. */
async function ttlOf(adminURL: string): Promise<{ value: unknown; source: unknown }> {
  const config = await adminJson<{ values: Record<string, { value: unknown; source: unknown }> }>(
    adminURL,
    '/admin/config',
  );
  const setting = config.values['cache.product.ttl'];
  return { value: setting?.value, source: setting?.source };
}
