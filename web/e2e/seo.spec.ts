import { expect, test } from '@playwright/test';
import { gotoHydrated } from './support/hydration';

test.describe('the head crawlers and link previews see', () => {
  test('a product: the server-rendered head, taken over by the app without a duplicate tag', async ({ page }) => {
    const response = await page.goto('/product/summit%20lr');
    expect(response?.status()).toBe(200);
    const html = (await response?.text()) ?? '';
    // in the first HTML byte, before any JavaScript
    expect(html).toContain('<title data-seo>Summit LR | Talonforge Arms</title>');
    expect(html).toContain('<meta data-seo property="og:type" content="product">');
    expect(html).toContain('"@type":"Product"');

    await expect(page.getByRole('main').getByRole('heading', { level: 1, name: 'Summit LR' })).toBeVisible();
    await expect(page).toHaveTitle('Summit LR | Talonforge Arms');
    const head = page.locator('head');
    for (const selector of [
      'title',
      'meta[name="description"]',
      'link[rel="canonical"]',
      'meta[property="og:title"]',
      'meta[property="og:type"]',
    ]) {
      await expect(head.locator(selector), selector).toHaveCount(1);
    }
    await expect(head.locator('script[type="application/ld+json"]')).toHaveCount(1);
    await expect(head.locator('meta[name="robots"]')).toHaveCount(0);
  });

  test('after navigating away, the landing page’s JSON-LD and price are gone; private pages are noindex', async ({
    page,
  }) => {
    // a client-side navigation needs the app: the heading is in the server's markup before it runs
    await gotoHydrated(page, '/product/summit%20lr');
    await expect(page.getByRole('main').getByRole('heading', { level: 1, name: 'Summit LR' })).toBeVisible();
    await page.evaluate(() => {
      window.history.pushState(null, '', '/login');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await expect(page).toHaveTitle(/Sign In/);
    const head = page.locator('head');
    await expect(head.locator('script[type="application/ld+json"]')).toHaveCount(0);
    await expect(head.locator('meta[property^="product:"]')).toHaveCount(0);
    await expect(head.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
    await expect(head.locator('meta[name="description"]')).toHaveCount(1);
  });

  test('/home is a permanent redirect to the home page; robots.txt and the sitemap are what they say', async ({
    page,
    request,
  }) => {
    const home = await request.get('/home', { maxRedirects: 0 });
    expect(home.status()).toBe(301);
    expect(home.headers().location).toBe('/');

    const robots = await request.get('/robots.txt');
    expect(robots.headers()['content-type']).toBe('text/plain; charset=utf-8');
    expect(await robots.text()).toContain('Disallow: /checkout');

    const sitemap = await request.get('/sitemap.xml');
    expect(sitemap.headers()['content-type']).toBe('application/xml; charset=utf-8');
    expect(await sitemap.text()).toContain('/product/summit%20lr</loc>');

    await page.goto('/home');
    await expect(page).toHaveURL(/\/$/);
  });
});
