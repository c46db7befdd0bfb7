import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/frame';
import { gotoHydrated } from './support/hydration';
import manifest from '../src/app/routes.json' with { type: 'json' };

/**
 * The first screen is the server's (issue 28): with JavaScript off, Chromium shows the product,
 * the collection and home from the document alone; with it on, React takes the same markup over
 * without throwing it away (`onRecoverableError` is never called) and the page works.
 */

const PRODUCT = '/product/summit%20lr';
const COLLECTION = '/collection/rifles';

/** A path of each route of the manifest whose first screen the server renders (issue 48). */
const PARAMETERS: Record<string, string> = {
  'product/:title': PRODUCT,
  'collection/:title': COLLECTION,
  'search/:query': '/search/rifle',
};
const SERVER_RENDERED = manifest.routes
  .filter((route) => route.render !== 'shell')
  .map((route) => PARAMETERS[route.path] ?? `/${route.path}`);

interface Sku {
  sku: string;
  finalPrice: number;
  discountPercentage?: number;
  imgUrl?: { src: string } | null;
  variants?: { label: string; productVariantType: { displayTitle: string } }[];
}
interface Priced {
  title: string;
  displayedSku: string;
  skus: Sku[];
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

function displayed(product: Priced): Sku {
  const sku = product.skus.find((candidate) => candidate.sku === product.displayedSku);
  if (!sku) throw new Error(`${product.title}: no displayed sku`);
  return sku;
}

async function api<T>(page: Page, path: string): Promise<T> {
  const answer = await page.request.get(path);
  expect(answer.status(), path).toBe(200);
  return (await answer.json()) as T;
}

/** The image has been fetched and decoded: it is painted, not only in the markup. */
async function expectLoaded(image: Locator): Promise<void> {
  await expect(image).toBeVisible();
  await expect
    .poll(() => image.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth > 0))
    .toBe(true);
}

/** What React's `onRecoverableError` reported (`src/ssr/recoverable-errors.ts`); undefined unless the page hydrated server markup. */
function recoverableErrors(page: Page): Promise<string[] | undefined> {
  return page.evaluate(() => (window as Window & { __recoverableErrors?: string[] }).__recoverableErrors);
}

/** A sku of the product other than the displayed one, at another price: a shared variant link. */
function otherSku(product: Priced): Sku {
  const shown = displayed(product);
  // not discounted: the price group shows one price
  const sku = product.skus.find(
    (candidate) => candidate.finalPrice !== shown.finalPrice && candidate.discountPercentage === 0,
  );
  if (!sku) throw new Error(`${product.title}: every sku has the displayed price`);
  return sku;
}

interface Tabbed {
  filterCategories: { title: string; options: { value: string }[] }[];
  products: { title: string; filterOptions: { filterCategory: string; filterValue: string }[] }[];
}

/** The rifles' second tab (issue 43: the first screen of `?activeFilter=`), and its products. */
async function secondTab(page: Page): Promise<{ tab: string; titles: string[] }> {
  const collection = await api<Tabbed>(page, '/api/collections/rifles');
  const [category] = collection.filterCategories;
  const tab = category?.options[1]?.value;
  if (!category || !tab) throw new Error('rifles: no second tab');
  const titles = collection.products
    .filter((card) =>
      card.filterOptions.some((tag) => tag.filterCategory === category.title && tag.filterValue === tab),
    )
    .map((card) => card.title);
  return { tab, titles };
}

async function expectMainNavigation(page: Page): Promise<void> {
  const nav = page.getByRole('banner').getByRole('navigation', { name: 'Main' });
  for (const menu of ['Rifles', 'Pistols', 'Apparel & Gear', 'Support']) {
    await expect(nav.getByText(menu, { exact: true }).first()).toBeVisible();
  }
}

test.describe('with JavaScript disabled', () => {
  test.use({ javaScriptEnabled: false });

  test.afterEach(async ({ page }) => {
    // no script ran: what the test saw is the server's markup
    await expect(page.locator('html')).not.toHaveAttribute('data-hydrated');
  });

  test('the product page shows its h1, price, main image and navigation', async ({ page }) => {
    const product = await api<Priced>(page, '/api/products/summit%20lr');
    await page.goto(PRODUCT);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1, name: 'Summit LR' })).toBeVisible();
    await expect(main.getByRole('group', { name: 'Price' })).toHaveText(usd.format(displayed(product).finalPrice));
    const mainImage = main.getByRole('region', { name: 'Image gallery' }).locator('.product-images__main img');
    await expect(mainImage).toHaveAttribute('src', displayed(product).imgUrl?.src ?? '');
    await expectLoaded(mainImage);
    await expectMainNavigation(page);
  });

  test('the collection page shows its h1 and product cards with titles and prices', async ({ page }) => {
    const collection = await api<{ products: Priced[] }>(page, '/api/collections/rifles');
    expect(collection.products.length).toBeGreaterThan(0);
    await page.goto(COLLECTION);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1, name: 'Rifles' })).toBeVisible();
    await expect(main.getByRole('article')).toHaveCount(collection.products.length);
    for (const product of collection.products) {
      const card = main.getByRole('article', { name: product.title, exact: true });
      await expect(card.getByRole('heading', { name: product.title, exact: true })).toBeVisible();
      const price = displayed(product).finalPrice;
      await expect(card).toContainText(price > 0 ? usd.format(price) : 'Coming Soon');
    }
    await expectLoaded(main.getByRole('article').first().locator('img').first());
  });

  test("a shared variant link shows that sku's price and options", async ({ page }) => {
    const product = await api<Priced>(page, '/api/products/summit%20lr');
    const sku = otherSku(product);
    await page.goto(`${PRODUCT}?sku=${sku.sku}&utm_source=share`);
    const main = page.getByRole('main');
    await expect(main.getByRole('group', { name: 'Price' })).toHaveText(usd.format(sku.finalPrice));
    for (const variant of sku.variants ?? []) {
      await expect(main.getByRole('combobox', { name: variant.productVariantType.displayTitle })).toHaveValue(
        variant.label,
      );
    }
  });

  test('a tab link shows that tab selected, with its products', async ({ page }) => {
    const { tab, titles } = await secondTab(page);
    expect(titles.length).toBeGreaterThan(0);
    await page.goto(`${COLLECTION}?activeFilter=${encodeURIComponent(tab)}`);
    const main = page.getByRole('main');
    await expect(main.getByRole('tab', { name: tab, exact: true })).toHaveAttribute('aria-selected', 'true');
    await expect(main.getByRole('tab', { name: 'All', exact: true })).toHaveAttribute('aria-selected', 'false');
    await expect(main.getByRole('article')).toHaveCount(titles.length);
    for (const title of titles) await expect(main.getByRole('article', { name: title, exact: true })).toBeVisible();
  });

  test("home shows the carousel's first slide and the ribbon", async ({ page }) => {
    const home = await api<{ carousel: { title: string }[]; ribbon: { title: string }[] }>(page, '/api/pages/home');
    await page.goto('/');
    const main = page.getByRole('main');
    const carousel = main.getByRole('region', { name: 'Featured' });
    const [first] = home.carousel;
    if (!first) throw new Error('home has no carousel slide');
    await expect(carousel.getByRole('heading', { name: first.title, exact: true })).toBeVisible();
    await expectLoaded(carousel.locator('img').first());
    const ribbon = main.getByRole('region', { name: 'Shop by category' });
    expect(home.ribbon.length).toBeGreaterThan(0);
    for (const item of home.ribbon) {
      await expect(ribbon.getByText(item.title, { exact: true })).toBeVisible();
    }
    await expectMainNavigation(page);
  });
});

test.describe('with JavaScript', () => {
  test('the server renders the first screen of some routes of the manifest, each named once here', () => {
    expect(SERVER_RENDERED).toEqual(expect.arrayContaining(['/', PRODUCT, COLLECTION, '/search/rifle']));
    expect(
      SERVER_RENDERED.every((path) => !path.includes(':')),
      SERVER_RENDERED.join(' '),
    ).toBe(true);
  });

  for (const path of SERVER_RENDERED) {
    test(`${path}: hydrates the server's markup without a recoverable error`, async ({ page }) => {
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      const configReads: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/config') configReads.push(request.url());
      });
      await gotoHydrated(page, path);
      // the document carries the runtime config: the app reads it from there, not the API
      expect(configReads).toEqual([]);
      // an array only on the hydrating path (main.tsx): the document was server-rendered
      const recovered = await recoverableErrors(page);
      expect(recovered, 'onRecoverableError was called').toEqual([]);
      expect(errors.filter((text) => text.includes('hydrat'))).toEqual([]);
    });
  }

  test('variant and filter links hydrate without a recoverable error, then show what they name', async ({ page }) => {
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const product = await api<Priced>(page, '/api/products/summit%20lr');
    const sku = otherSku(product);
    const { tab, titles } = await secondTab(page);
    const upgrades = await api<{ products: { title: string }[] }>(page, '/api/collections/upgrades');
    const main = page.getByRole('main');

    await gotoHydrated(page, `${PRODUCT}?sku=${sku.sku}`);
    expect(await recoverableErrors(page), `${PRODUCT}?sku=`).toEqual([]);
    await expect(main.getByRole('group', { name: 'Price' })).toHaveText(usd.format(sku.finalPrice));

    await gotoHydrated(page, `${COLLECTION}?activeFilter=${encodeURIComponent(tab)}`);
    expect(await recoverableErrors(page), `${COLLECTION}?activeFilter=`).toEqual([]);
    await expect(main.getByRole('article')).toHaveCount(titles.length);

    // the filterable grid's own parameters: the document is the unfiltered grid, the browser
    // applies them once it has taken the page over
    await gotoHydrated(page, '/collection/upgrades?q=a&sort=title-desc&category=Triggers');
    expect(await recoverableErrors(page), '/collection/upgrades?q=&sort=&category=').toEqual([]);
    await expect(
      main.getByRole('checkbox', { name: 'Triggers' }).or(main.getByRole('radio', { name: 'Triggers' })),
    ).toBeChecked();
    await expect(main.getByRole('searchbox')).toHaveValue('a');
    await expect(main.getByRole('combobox', { name: 'Sort by' })).toHaveValue('title-desc');
    await expect(main.getByRole('article')).not.toHaveCount(upgrades.products.length);
    expect(errors.filter((text) => text.includes('hydrat'))).toEqual([]);
  });

  test("the product document lists its route's chunks, and the app's scripts load only after its main image", async ({
    page,
  }) => {
    const html = await (await page.request.get(PRODUCT)).text();
    // the document's one script is the boot script, at low priority; nothing else is fetched early
    const scripts = [...html.matchAll(/<script type="module"[^>]*>/g)].map(([tag]) => tag);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toContain('fetchpriority="low"');
    expect(html).not.toMatch(/<link[^>]+rel="(?:modulepreload|preload)"[^>]+as="script"|rel="modulepreload"/);
    const listed = /<script type="application\/json" id="route-chunks">([^<]*)<\/script>/.exec(html);
    const chunks = JSON.parse(listed?.[1] ?? '[]') as string[];
    expect(
      chunks.some((href) => /^\/assets\/product-[\w-]+\.js$/.test(href)),
      chunks.join(' '),
    ).toBe(true);
    for (const href of chunks) expect((await page.request.get(href)).status(), href).toBe(200);

    await gotoHydrated(page, PRODUCT);
    const { image, scripts: loaded } = await page.evaluate(() => {
      const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const main = document.querySelector<HTMLImageElement>('#root img[fetchpriority="high"]');
      const hero = entries.find((entry) => entry.name === main?.src);
      return {
        image: hero ? hero.responseEnd : null,
        scripts: entries
          .filter((entry) => /\/assets\/.+\.js$/.test(entry.name) && !entry.name.includes('/assets/boot-'))
          .map((entry) => ({ name: entry.name, start: entry.startTime })),
      };
    });
    expect(image, 'the main image was loaded').not.toBeNull();
    expect(loaded.length).toBeGreaterThan(chunks.length);
    // every app and route script was asked for once the main image was in
    for (const script of loaded) expect(script.start, script.name).toBeGreaterThanOrEqual(image ?? Infinity);
    // the boot script preloaded the listed chunks, each once: the router found them loaded
    const linked = await page.evaluate(() =>
      [...document.querySelectorAll('link[rel="modulepreload"]')].map((link) => link.getAttribute('href')),
    );
    for (const href of chunks)
      expect(
        linked.filter((candidate) => candidate === href),
        href,
      ).toHaveLength(1);
  });

  test('the product page works once hydrated: the cascade of selects, then Add to Cart', async ({ page }) => {
    await gotoHydrated(page, PRODUCT);
    const main = page.getByRole('main');
    const caliber = main.getByRole('combobox', { name: 'Caliber' });
    const barrel = main.getByRole('combobox', { name: 'Barrel Length' });
    const color = main.getByRole('combobox', { name: 'Color' });
    const price = main.getByRole('group', { name: 'Price' });
    await expect(caliber).toHaveValue('6.5 Creedmoor');

    // an earlier select narrows the later ones and resets them to their first valid value
    await caliber.selectOption('.308 Win');
    await expect(barrel).toHaveValue('24"');
    await expect(barrel.getByRole('option')).toHaveText(['24"', '20"']);
    await expect(color).toHaveValue('Black');
    await expect(color.getByRole('option')).toHaveText(['Black']);
    await barrel.selectOption('20"');
    await expect(color.getByRole('option')).toHaveText(['Black', 'Flat Dark Earth']);
    await expect(price).toHaveText('$2,149.00');

    await main.getByRole('button', { name: 'Add to Cart' }).click();
    const drawer = page.getByRole('dialog', { name: 'Cart' });
    await expect(drawer.getByRole('status')).toHaveText(/^You added Summit LR \(.+\) to your shopping cart$/);
    await expect(page.getByRole('banner').getByRole('button', { name: 'Cart, 1 item' })).toBeVisible();
    expect(await recoverableErrors(page)).toEqual([]);
  });
});
