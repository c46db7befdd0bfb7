import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/frame';
import { gotoHydrated, reloadHydrated, waitForHydration } from './support/hydration';

/*
 * Issue 32: the specs' letter, each item in real Chromium against the real bff + sandbox.
 * Serial: the add-on journey places an order and the profile journey signs in.
 */
test.describe.configure({ mode: 'serial' });

const SUMMIT_LR = '/product/summit%20lr';
const ADD_ON = 'Ironclad 20 MOA Rail'; // +$89.00 on the Summit LR
const SKU_PRICE = '$2,199.00'; // TF-SLR-65CM-24-BLK, the page's first sku, undiscounted
const WITH_ADD_ON = '$2,288.00';

function drawer(page: Page): Locator {
  return page.getByRole('dialog', { name: 'Cart' });
}

function money(amount: number): string {
  return `$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

interface CartAnswer {
  items: { productPrice: number; options: { label: string; value: string }[]; quantity: number }[];
  subTotal: number;
  taxAmount: number;
  shipping: number;
  discountAmount: number;
  totalAmount: number;
}

test('an add-on is charged: in the drawer, the order total, the placed order and the confirmation; without it, another line at the sku price', async ({
  page,
}) => {
  test.setTimeout(90_000);
  // analytics accepted, so the purchase is recorded (item 8: its value is the pre-tax total)
  await page.addInitScript(() => {
    localStorage.setItem('analyticsConsent', 'true');
    localStorage.setItem('analyticsConsentTimestamp', String(Date.now()));
  });
  await gotoHydrated(page, SUMMIT_LR);
  await page.getByRole('button', { name: new RegExp(ADD_ON) }).click();
  await expect(page.getByRole('button', { name: new RegExp(ADD_ON) })).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('button', { name: 'Add to Cart' }).click();

  const withAddOn = drawer(page).getByRole('listitem').filter({ hasText: ADD_ON });
  await expect(withAddOn).toContainText(WITH_ADD_ON);
  await page.keyboard.press('Escape');

  // turned off and added again: a separate line at the sku's price
  await page.getByRole('button', { name: new RegExp(ADD_ON) }).click();
  await expect(page.getByRole('button', { name: new RegExp(ADD_ON) })).toHaveAttribute('aria-pressed', 'false');
  await page.getByRole('button', { name: 'Add to Cart' }).click();
  await expect(drawer(page).getByRole('status')).toHaveText(/^You added Summit LR \(.+\) to your shopping cart$/);
  const lines = drawer(page).getByRole('list').first().getByRole('listitem');
  await expect(lines).toHaveCount(2);
  const plain = lines.filter({ hasNotText: ADD_ON });
  await expect(plain).toContainText(SKU_PRICE);
  await expect(plain).not.toContainText(WITH_ADD_ON);
  const cart = (await (await page.request.get('/api/cart')).json()) as CartAnswer;
  expect(cart.items.map((item) => item.productPrice)).toEqual([2288, 2199]);
  expect(cart.items[0]?.options).toContainEqual({ label: 'Add-Ons', value: ADD_ON });

  // the plain line goes; the one with the add-on is checked out
  await plain.getByRole('button', { name: /^Remove/ }).click();
  await expect(lines).toHaveCount(1);
  await page.keyboard.press('Escape');

  await gotoHydrated(page, '/checkout');
  const billing = page.getByRole('form', { name: 'Billing & shipping' });
  const address = billing.getByRole('group', { name: 'Billing Address' });
  await address.getByLabel('Email').fill(`addons-${String(Date.now())}@example.test`);
  await address.getByLabel('First Name').fill('Jane');
  await address.getByLabel('Last Name').fill('Doe');
  await address.getByLabel('Address', { exact: true }).fill('100 Congress Ave');
  await address.getByLabel('City', { exact: true }).fill('Austin');
  await address.getByLabel('State', { exact: true }).selectOption({ label: 'Texas' });
  await address.getByLabel('Zip Code', { exact: true }).fill('78701');
  await billing.getByLabel('Dealer Name').fill('Lone Star Arms');
  await billing.getByLabel('Dealer Address').fill('200 Ranch Rd');
  await billing.getByLabel('Dealer Email').fill('ffl@lonestar.example');
  await billing.getByLabel('Dealer Phone').fill('(512) 555-0199');
  await billing.getByLabel('Dealer City').fill('Dallas');
  await billing.getByLabel('Dealer State').selectOption({ label: 'Texas' });
  await billing.getByLabel('Dealer Zip Code').fill('75201');

  // every item is FFL: the checkout body keeps its own (empty) shipping fields (item 6)
  const computeBody = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/cart/compute');
  await billing.getByRole('button', { name: 'Next' }).click();
  const sent = (await computeBody).postDataJSON() as {
    shippingAddress?: string;
    shippingCity?: string;
    address: string;
  };
  expect(sent.address).toBe('100 Congress Ave');
  expect(sent.shippingAddress ?? '').toBe('');
  expect(sent.shippingCity ?? '').toBe('');
  await expect(page).toHaveURL(/stepId=payment/);

  const computed = (await (await page.request.get('/api/cart')).json()) as CartAnswer;
  expect(computed.subTotal).toBe(2288);
  expect(computed.totalAmount).toBeCloseTo(2288 + computed.shipping - computed.discountAmount + computed.taxAmount, 2);
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(summary).toContainText(WITH_ADD_ON);
  await expect(summary).toContainText(money(computed.totalAmount));

  const form = page.getByRole('form', { name: 'Payment' });
  await form.getByLabel('Card Number').fill('4111111111111111');
  await form.getByLabel('Expiration Month').selectOption('12');
  await form.getByLabel('Expiration Year').selectOption(String(new Date().getFullYear() + 2));
  await form.getByLabel('Card Code').fill('123');
  await form.getByRole('button', { name: 'Place Order' }).click();

  await expect(page.getByRole('heading', { name: 'Thank You! Your order has been received' })).toBeVisible();
  const orderId = /\/confirm\/(\d+)/.exec(page.url())?.[1] ?? '';
  expect(orderId).not.toBe('');
  const order = (await (await page.request.get(`/api/orders/${orderId}`)).json()) as {
    items: { unitPrice: number; quantity: number; options: unknown }[];
    totalAmount: number;
    taxAmount: number;
  };
  expect(order.items).toEqual([expect.objectContaining({ unitPrice: 2288, quantity: 1 })]);
  expect(order.totalAmount).toBe(computed.totalAmount);
  await expect(page.getByRole('main')).toContainText(WITH_ADD_ON);
  await expect(page.getByRole('main')).toContainText(money(order.totalAmount));

  // item 8: the purchase's value is the pre-tax total (total minus tax)
  const purchases = await page.evaluate(() => {
    const events = (window as unknown as { dataLayer?: { event: string }[] }).dataLayer ?? [];
    return events.filter((event) => event.event === 'purchase');
  });
  expect(purchases).toEqual([
    expect.objectContaining({
      transactionId: orderId,
      value: Math.round((order.totalAmount - order.taxAmount) * 100) / 100,
      currency: 'USD',
    }),
  ]);
});

test("a quantity change in the drawer says 'You updated … in your shopping cart'; a warning in a cart read is toasted once", async ({
  page,
}) => {
  await gotoHydrated(page, '/');
  // TF-SLR-308-20-FDE has 3 in stock
  const added = await page.request.post('/api/cart/items', {
    headers: { 'X-CSRF': '1' },
    data: { productId: 'TF-SLR-308-20-FDE', quantity: 1, productUrl: SUMMIT_LR },
  });
  expect(added.status(), await added.text()).toBe(200);
  await reloadHydrated(page);
  await page
    .getByRole('banner')
    .getByRole('button', { name: /^Cart, 1 item/ })
    .click();
  await drawer(page)
    .getByRole('button', { name: /^Increase quantity of Summit LR/ })
    .click();
  await expect(drawer(page).getByRole('status')).toHaveText(/^You updated Summit LR \(.+\) in your shopping cart$/);
  await page.keyboard.press('Escape');

  // 5 of 3: the next read of the cart (a fresh page) carries the warning, toasted once
  const line = ((await (await page.request.get('/api/cart')).json()) as { items: { id: number }[] }).items[0];
  const updated = await page.request.put(`/api/cart/items/${String(line?.id)}`, {
    headers: { 'X-CSRF': '1' },
    data: { quantity: 5 },
  });
  expect(updated.status()).toBe(200);
  const warning = 'InsufficientStock: (Summit LR) - Only 3 in stock; 5 requested.';
  await reloadHydrated(page);
  await expect(page.getByText(warning)).toHaveCount(1);
});

test("the registration link's page says VERIFYING REGISTRATION... even with a bad token, and the server's message", async ({
  page,
}) => {
  await page.route('**/api/auth/verify-registration', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 800));
    await route.continue();
  });
  await gotoHydrated(page, '/verify-email?token=not-a-real-token&type=email');
  await expect(page.getByRole('heading', { level: 1, name: 'VERIFYING REGISTRATION...' })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  // the server's message for the bad token, not the newsletter link's texts
  await expect(page.getByText('Invalid or expired verification token')).toBeVisible();
  await expect(page.getByText('Email verified successfully')).toHaveCount(0);
  await expect(page.getByText('Registration verified successfully')).toHaveCount(0);
});

test("the dealer locator's title, description and social tags are its content's metaData", async ({ page }) => {
  await gotoHydrated(page, '/');
  await page
    .getByRole('banner')
    .getByRole('link', { name: /dealer locator/i })
    .first()
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dealer Locator' })).toBeVisible();
  await expect(page).toHaveTitle('Dealer Locator | Talonforge Arms');
  const description = 'Find a Talonforge Arms dealer near you.';
  await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', description);
  await expect(page.locator('meta[property="og:description"]')).toHaveAttribute('content', description);
  await expect(page.locator('meta[property="og:title"]')).toHaveAttribute(
    'content',
    'Dealer Locator | Talonforge Arms',
  );
});

test('the dealer registration offers the 50 states and DC, and keeps the ZIP to digits', async ({ page }) => {
  await gotoHydrated(page, '/dealer-registration');
  const form = page.getByRole('main').getByRole('form', { name: 'Become a Talonforge Dealer' });
  const state = form.getByRole('combobox', { name: 'State', exact: true });
  await expect(state.locator('option')).toHaveCount(52);
  await state.selectOption({ label: 'District of Columbia' });
  await expect(state).toHaveValue('DC');
  const zip = form.getByRole('textbox', { name: 'Postal Code', exact: true });
  await zip.pressSequentially('2a0-0b01');
  await expect(zip).toHaveValue('20001');
});

test('the 3D page, reached by the Rifles menu link from home, hosts the build on a canvas from /Build/: wasm under its own CSP, ready at progress 1, the bridge wired to it', async ({
  page,
}) => {
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  // Issue 46: only the builder's document allows wasm, so the link from a page without it must
  // load a new document (an in-app navigation would keep the home page's CSP and the build fail).
  const home = await gotoHydrated(page, '/');
  expect(home?.headers()['content-security-policy'] ?? '').not.toContain("'wasm-unsafe-eval'");
  const wasm = page.waitForResponse((response) => new URL(response.url()).pathname === '/Build/builder.wasm.br');
  const builderDocument = page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/3dbuilder' && response.request().resourceType() === 'document',
  );
  const nav = page.getByRole('banner').getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: 'Rifles', exact: true }).click();
  await nav.getByRole('link', { name: '3D Builder' }).click();
  const document = await builderDocument;
  await waitForHydration(page);
  const csp = document.headers()['content-security-policy'] ?? '';
  const scriptSrc =
    csp
      .split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith('script-src')) ?? '';
  expect(scriptSrc).toContain("'wasm-unsafe-eval'");
  expect(csp).not.toContain("'unsafe-eval'");
  expect(csp).not.toMatch(/frame-src[^;]*\/3p\/builder/);

  const served = await wasm;
  expect(served.headers()['content-encoding']).toBe('br');
  expect(served.headers()['content-type']).toBe('application/wasm');

  expect(await page.locator('iframe').count()).toBe(0);
  const canvas = page.getByRole('application', { name: '3D Builder' }).locator('canvas');
  await expect(canvas).toHaveAttribute('data-state', 'ready');
  // the wasm module ran in the page: its add(2, 3)
  await expect(canvas).toHaveAttribute('data-wasm-check', '5');
  // the game registered, asked for the guest session and stored one: the page answered each
  await expect
    .poll(async () => JSON.parse((await canvas.getAttribute('data-received')) ?? '[]') as unknown[])
    .toEqual(
      expect.arrayContaining([
        { type: 'registeredBridge' },
        { type: 'guestSession', value: '' },
        { type: 'guestSessionStored', value: 'gid_stand-in-build' },
      ]),
    );
  expect(await page.evaluate(() => localStorage.getItem('builderGuestSession'))).toBe('gid_stand-in-build');
  // 16:9, no taller than the window minus 140
  const box = await canvas.boundingBox();
  const viewport = page.viewportSize();
  expect(box && viewport).toBeTruthy();
  if (box && viewport) {
    expect(Math.abs(box.width / box.height - 16 / 9)).toBeLessThan(0.01);
    expect(box.height).toBeLessThanOrEqual(viewport.height - 140);
  }
  expect(cspViolations).toEqual([]);
});
