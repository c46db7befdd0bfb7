import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from './support/frame';
import { gotoHydrated, reloadHydrated } from './support/hydration';

/*
 * Checkout against the real bff + sandbox. The cart is filled through the BFF's cart API from the
 * page's context (same cookies as the browser), then the shopper checks out in the UI. The
 * sandbox's request stats count the upstream checkout calls; its outbox holds the order e-mails.
 * Serial: the stats are global to the server, so no two tests of this file place orders at once.
 */
test.describe.configure({ mode: 'serial' });

const CHECKOUT_ROUTE = '/Checkout/simplified';

const SKU = {
  caseSmall: 'TF-PSC-38', // Patrol Soft Case, not FFL, unrestricted
  kit: 'TF-FMK', // Field Maintenance Kit, not FFL, unrestricted
  brake: 'TF-AMB-12X28-BN', // Apex Muzzle Brake: restricted zips 10001, 94105
  rifle: 'TF-SLR-65CM-24-BLK', // Summit LR: FFL
} as const;

const CARD = {
  visa: '4111111111111111',
  declined: '4000300011112220',
  badCheckDigit: '4111111111111112',
};

let runs = 0;
function uniqueEmail(name: string): string {
  runs += 1;
  return `${name}-${String(Date.now())}-${String(runs)}@example.test`;
}

async function sandboxOrigin(request: APIRequestContext): Promise<string> {
  const config = (await (await request.get('/api/config')).json()) as { payment: { scriptUrl: string } };
  return new URL(config.payment.scriptUrl).origin;
}

async function checkoutCalls(request: APIRequestContext): Promise<number> {
  const stats = (await (await request.get(`${await sandboxOrigin(request)}/sandbox/stats`)).json()) as {
    routes: Record<string, number>;
  };
  return stats.routes[CHECKOUT_ROUTE] ?? 0;
}

async function orderEmails(
  request: APIRequestContext,
  email: string,
): Promise<{ kind: string; subject: string; link: string | null }[]> {
  const url = `${await sandboxOrigin(request)}/3p/outbox.json?to=${encodeURIComponent(email)}`;
  const mails = (await (await request.get(url)).json()) as { kind: string; subject: string; link: string | null }[];
  return mails.filter((mail) => mail.kind === 'order-confirmation');
}

/** Adds a line through the BFF's cart API, with the browser's cookies. */
async function addToCart(page: Page, productId: string, quantity = 1): Promise<void> {
  const response = await page.request.post('/api/cart/items', {
    headers: { 'X-CSRF': '1' },
    data: { productId, quantity },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** The browser's calls to the BFF's checkout: how many, and their bodies. */
function watchCheckoutRequests(page: Page): { count: () => number; bodies: string[] } {
  const bodies: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/checkout')
      bodies.push(request.postData() ?? '');
  });
  return { count: () => bodies.length, bodies };
}

interface Address {
  email: string;
  firstName: string;
  lastName: string;
  address: string;
  city: string;
  state: string;
  zip: string;
}

const austin = (email: string): Address => ({
  email,
  firstName: 'Jane',
  lastName: 'Doe',
  address: '100 Congress Ave',
  city: 'Austin',
  state: 'Texas',
  zip: '78701',
});

function billingForm(page: Page): Locator {
  return page.getByRole('form', { name: 'Billing & shipping' });
}

async function fillBilling(page: Page, address: Address): Promise<void> {
  const form = billingForm(page).getByRole('group', { name: 'Billing Address' });
  await form.getByLabel('Email').fill(address.email);
  await form.getByLabel('First Name').fill(address.firstName);
  await form.getByLabel('Last Name').fill(address.lastName);
  await form.getByLabel('Address', { exact: true }).fill(address.address);
  await form.getByLabel('City', { exact: true }).fill(address.city);
  await form.getByLabel('State', { exact: true }).selectOption({ label: address.state });
  await form.getByLabel('Zip Code', { exact: true }).fill(address.zip);
}

async function fillDealer(page: Page, phone = '(512) 555-0199'): Promise<void> {
  const form = billingForm(page);
  await form.getByLabel('Dealer Name').fill('Lone Star Arms');
  await form.getByLabel('Dealer Address').fill('200 Ranch Rd');
  await form.getByLabel('Dealer Email').fill('ffl@lonestar.example');
  await form.getByLabel('Dealer Phone').fill(phone);
  await form.getByLabel('Dealer City').fill('Dallas');
  await form.getByLabel('Dealer State').selectOption({ label: 'Texas' });
  await form.getByLabel('Dealer Zip Code').fill('75201');
}

async function next(page: Page): Promise<void> {
  await billingForm(page).getByRole('button', { name: 'Next' }).click();
}

async function fillCard(page: Page, number: string, cardCode = '123'): Promise<void> {
  const form = page.getByRole('form', { name: 'Payment' });
  await form.getByLabel('Card Number').fill(number);
  await form.getByLabel('Expiration Month').selectOption('12');
  await form.getByLabel('Expiration Year').selectOption(String(new Date().getFullYear() + 2));
  await form.getByLabel('Card Code').fill(cardCode);
}

function placeOrderButton(page: Page): Locator {
  return page.getByRole('form', { name: 'Payment' }).getByRole('button', { name: 'Place Order' });
}

function banner(page: Page, text: string): Locator {
  return page.getByText(text, { exact: true });
}

test('a guest buys an in-stock item end to end: errors, payment, confirmation and the order e-mail', async ({
  page,
}) => {
  const email = uniqueEmail('guest');
  await gotoHydrated(page, '/');
  await addToCart(page, SKU.caseSmall, 2);

  // the payment step without a completed billing step goes back to billing
  await gotoHydrated(page, '/checkout?stepId=payment');
  await expect(page).toHaveURL(/\/checkout\?stepId=billing$/);
  const steps = page.getByRole('navigation', { name: 'Checkout steps' });
  await expect(steps.getByText('Billing & shipping')).toHaveAttribute('aria-current', 'step');
  await expect(page.getByRole('main').getByRole('link', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('button', { name: '2 Item(s) in Cart' })).toBeVisible();
  await expect(billingForm(page).getByRole('radio', { name: 'Standard Ground: Free' })).toBeChecked();
  await expectNoAxeViolations(page);

  // Next with an empty form: the spec's messages, focus on the first field in error
  await next(page);
  await expect(page.getByRole('alert').filter({ hasText: 'Errors in the Billing Form' })).toBeVisible();
  await expect(billingForm(page).getByLabel('Email')).toBeFocused();
  await expect(billingForm(page).getByText('Required')).toHaveCount(7);
  await billingForm(page).getByLabel('Email').fill('jane@');
  await billingForm(page).getByLabel('Zip Code', { exact: true }).fill('787');
  await next(page);
  await expect(billingForm(page).getByText('Must be a valid email address')).toBeVisible();
  await expect(billingForm(page).getByText('Zip code must be at least 5 digits')).toBeVisible();

  await fillBilling(page, austin(email));
  await billingForm(page).getByLabel('Phone (optional)').fill('5125550100');
  await expect(billingForm(page).getByLabel('Phone (optional)')).toHaveValue('(512) 555-0100');
  await billingForm(page).getByRole('radio', { name: 'Expedited: $19.99' }).check();
  await next(page);

  await expect(page).toHaveURL(/stepId=payment/);
  await expect(steps.getByText('Review & Payment')).toHaveAttribute('aria-current', 'step');
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(summary.getByText('Shipping', { exact: true }).locator('xpath=following-sibling::dd[1]')).toHaveText(
    '$19.99',
  );
  await expect(summary.getByRole('region', { name: 'Ship to' })).toContainText('100 Congress Ave');
  await expect(summary.getByRole('region', { name: 'Shipping method' })).toContainText('Expedited');
  await expect(page.getByRole('link', { name: 'Back' })).toBeVisible();
  // reloading keeps the saved forms (never a card field)
  await reloadHydrated(page);
  await expect(page.getByRole('form', { name: 'Payment' })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('billingForm'))).toContain(email);
  await expectNoAxeViolations(page);

  // the card: all four fields required, the number grouped, the brand shown
  await placeOrderButton(page).click();
  await expect(page.getByRole('form', { name: 'Payment' }).getByText('Required')).toHaveCount(4);
  const callsBefore = await checkoutCalls(page.request);
  await fillCard(page, CARD.visa);
  await expect(page.getByLabel('Card Number')).toHaveValue('4111 1111 1111 1111');
  // the detected brand's logo is marked (issue 47: logos, not words)
  const brands = page.getByRole('list', { name: 'Accepted cards' });
  await expect(
    brands.getByRole('listitem').filter({ has: page.getByRole('img', { name: 'Visa', exact: true }) }),
  ).toHaveAttribute('aria-current', 'true');
  await placeOrderButton(page).click();

  await expect(page.getByRole('heading', { name: 'Thank You! Your order has been received' })).toBeVisible();
  const orderId = /\/confirm\/(\d+)$/.exec(page.url())?.[1] ?? '';
  expect(orderId).toMatch(/^\d+$/);
  await expect(page.getByText(`Order Number: ${orderId}`)).toBeVisible();
  await expect(page.getByText(`a confirmation email was sent to ${email}`)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Shipping Address' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Dealer Address' })).toHaveCount(0);
  await expect(page.getByRole('row', { name: /Patrol Soft Case/ })).toContainText('$119.00');
  await expect(page.getByRole('row', { name: /Patrol Soft Case/ })).toContainText('$238.00');
  await expectNoAxeViolations(page);

  expect(await checkoutCalls(page.request)).toBe(callsBefore + 1);
  const mails = await orderEmails(page.request, email);
  expect(mails).toHaveLength(1);
  expect(mails[0]?.link).toContain(`/confirm/${orderId}`);
  // the forms are cleared and the cart is reset
  expect(await page.evaluate(() => sessionStorage.getItem('billingForm'))).toBeNull();
  const cart = (await (await page.request.get('/api/cart')).json()) as { items: unknown[] };
  expect(cart.items).toHaveLength(0);

  await page.getByRole('link', { name: 'Continue shopping' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('an FFL item needs the dealer form with a US phone, and ships to the dealer only', async ({ page }) => {
  const email = uniqueEmail('ffl');
  await gotoHydrated(page, '/');
  await addToCart(page, SKU.rifle);
  await gotoHydrated(page, '/checkout');

  await expect(billingForm(page).getByRole('group', { name: 'Dealer Address' })).toContainText('licensed dealer');
  await fillBilling(page, austin(email));
  await next(page);
  await expect(page.getByRole('alert').filter({ hasText: 'Errors in the Dealer Address Form' })).toBeVisible();
  await expect(billingForm(page).getByRole('alert')).not.toContainText('Errors in the Billing Form');
  await expect(billingForm(page).getByLabel('Dealer Name')).toBeFocused();

  await fillDealer(page, '555-0199');
  await next(page);
  await expect(billingForm(page).getByText('Must be a valid phone number')).toBeVisible();
  await billingForm(page).getByLabel('Dealer Phone').fill('15125550199');
  await expect(billingForm(page).getByLabel('Dealer Phone')).toHaveValue('1 (512) 555-0199');
  await next(page);

  await expect(page).toHaveURL(/stepId=payment/);
  const summary = page.getByRole('complementary', { name: 'Order summary' });
  await expect(summary.getByRole('region', { name: 'Dealer' })).toContainText('Lone Star Arms');
  await expect(summary.getByRole('region', { name: 'Ship to' })).toHaveCount(0);
  await fillCard(page, CARD.visa);
  await placeOrderButton(page).click();

  await expect(page.getByRole('heading', { name: 'Thank You! Your order has been received' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Dealer Address' })).toBeVisible();
  await expect(page.getByText('Lone Star Arms')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Shipping Address' })).toHaveCount(0);
});

test('a shipping address apart from billing: its own fields, required once shown, and the order ships there', async ({
  page,
}) => {
  const computed: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/cart/compute')
      computed.push(request.postData() ?? '');
  });
  await gotoHydrated(page, '/');
  await addToCart(page, SKU.kit);
  await gotoHydrated(page, '/checkout');
  await fillBilling(page, austin(uniqueEmail('ship-apart')));

  const shipping = billingForm(page).getByRole('group', { name: 'Shipping Address' });
  await expect(shipping.getByLabel('Shipping City', { exact: true })).toHaveCount(0);
  await shipping.getByLabel('Shipping address same as billing').uncheck();
  await expect(shipping.getByLabel('Shipping Zip Code', { exact: true })).toHaveAttribute(
    'autocomplete',
    'shipping postal-code',
  );
  await next(page);
  await expect(page.getByRole('alert').filter({ hasText: 'Errors in the Billing Form' })).toBeVisible();
  await expect(shipping.getByText('Required')).toHaveCount(6);
  await expect(shipping.getByLabel('Shipping First Name')).toBeFocused();

  await shipping.getByLabel('Shipping First Name').fill('Sam');
  await shipping.getByLabel('Shipping Last Name').fill('Roe');
  await shipping.getByLabel('Shipping Address', { exact: true }).fill('418 Harrison Blvd');
  await shipping.getByLabel('Shipping City', { exact: true }).fill('Boise');
  await shipping.getByLabel('Shipping State', { exact: true }).selectOption({ label: 'Idaho' });
  await shipping.getByLabel('Shipping Zip Code', { exact: true }).fill('837');
  await next(page);
  await expect(shipping.getByText('Zip code must be at least 5 digits')).toBeVisible();
  await shipping.getByLabel('Shipping Zip Code', { exact: true }).fill('83702');
  await next(page);

  await expect(page).toHaveURL(/stepId=payment/);
  const shipTo = page.getByRole('complementary', { name: 'Order summary' }).getByRole('region', { name: 'Ship to' });
  await expect(shipTo).toContainText('Sam Roe');
  await expect(shipTo).toContainText('Boise, ID 83702');
  // the BFF got its flat shape: billing's fields and shipping's apart
  const body = JSON.parse(computed.at(-1) ?? '{}') as Record<string, unknown>;
  expect(body).toMatchObject({
    address: '100 Congress Ave',
    shippingSameAsBilling: false,
    shippingFirstName: 'Sam',
    shippingAddress: '418 Harrison Blvd',
    shippingState: 'ID',
    shippingZip: '83702',
  });
});

test('a restricted zip opens the modal; Update Address closes it and Remove Items removes the item', async ({
  page,
}) => {
  await gotoHydrated(page, '/');
  await addToCart(page, SKU.brake);
  await addToCart(page, SKU.kit);
  await gotoHydrated(page, '/checkout');
  await fillBilling(page, { ...austin(uniqueEmail('restricted')), city: 'New York', state: 'New York', zip: '10001' });
  await next(page);

  const modal = page.getByRole('dialog', { name: 'You have restricted items in your cart' });
  await expect(modal).toBeVisible();
  await expect(modal).toContainText('Either remove them or edit your address to continue');
  await expect(modal).toContainText('The following items are restricted in your state or zip code:');
  await expect(modal.getByRole('listitem')).toHaveText([/^Apex Muzzle Brake/]);
  await expect(page.getByRole('alert').filter({ hasText: 'Restricted Items in Cart' })).toBeAttached();
  await expectNoAxeViolations(page);

  await modal.getByRole('button', { name: 'Update Address' }).click();
  await expect(modal).toBeHidden();
  await next(page);
  await modal.getByRole('button', { name: 'Remove Items' }).click();
  await expect(modal).toBeHidden();
  await expect(banner(page, 'All restricted items have been removed from your cart')).toBeVisible();
  await expect(page.getByRole('button', { name: '1 Item(s) in Cart' })).toBeVisible();

  // now the address passes: on to payment
  await next(page);
  await expect(page).toHaveURL(/stepId=payment/);
});

test('removing every item in the modal goes home with a warning; an empty cart redirects home', async ({ page }) => {
  await gotoHydrated(page, '/');
  await addToCart(page, SKU.brake);
  await gotoHydrated(page, '/checkout');
  await fillBilling(page, {
    ...austin(uniqueEmail('all-restricted')),
    city: 'San Francisco',
    state: 'California',
    zip: '94105',
  });
  await next(page);
  await page
    .getByRole('dialog', { name: 'You have restricted items in your cart' })
    .getByRole('button', { name: 'Remove Items' })
    .click();
  await expect(page).toHaveURL(/\/$/);
  await expect(banner(page, 'All Items have been removed from your cart')).toBeVisible();

  await gotoHydrated(page, '/checkout');
  await expect(page).toHaveURL(/\/$/);
  await expect(banner(page, 'Your cart is empty, so we have redirected you to the home page')).toBeVisible();
});

test('card errors: the tokenizer refuses a bad check digit, a declined card places no order, another card then does, once for a double click', async ({
  page,
}) => {
  const email = uniqueEmail('declined');
  const browserCalls = watchCheckoutRequests(page);
  await gotoHydrated(page, '/');
  await addToCart(page, SKU.kit);
  await gotoHydrated(page, '/checkout');
  await fillBilling(page, austin(email));
  await next(page);
  await expect(page).toHaveURL(/stepId=payment/);

  // the provider refuses the number: its first message, and no checkout call at all
  await fillCard(page, CARD.badCheckDigit);
  await placeOrderButton(page).click();
  await expect(banner(page, 'Please provide valid credit card number.')).toBeVisible();
  await expect(placeOrderButton(page)).toBeEnabled();
  expect(browserCalls.count()).toBe(0);

  // the double's declined card: the server's message, no order
  await fillCard(page, CARD.declined);
  await placeOrderButton(page).click();
  await expect(banner(page, 'This transaction has been declined.')).toBeVisible();
  await expect(placeOrderButton(page)).toBeEnabled();
  expect(await orderEmails(page.request, email)).toHaveLength(0);

  // another card, with a double click: exactly one order
  const callsBefore = await checkoutCalls(page.request);
  const browserBefore = browserCalls.count();
  await fillCard(page, CARD.visa);
  await placeOrderButton(page).dblclick();
  await expect(page.getByRole('heading', { name: 'Thank You! Your order has been received' })).toBeVisible();
  expect(await checkoutCalls(page.request)).toBe(callsBefore + 1);
  expect(browserCalls.count()).toBe(browserBefore + 1);
  expect(await orderEmails(page.request, email)).toHaveLength(1);
  // the card went to the tokenizer only: the BFF got a token, never a card number or code
  for (const body of browserCalls.bodies) {
    expect(body).toContain('"paymentToken":"sandbox-payment-');
    // Whole card numbers: the e-mail is made from a timestamp, whose digits may hold "4111".
    expect(body).not.toMatch(/4111111111111111|4000300011112220|cardNumber|cardCode/);
  }
});

test('a signed-in demo shopper has the e-mail locked and the default addresses prefilled', async ({ page }) => {
  await gotoHydrated(page, '/');
  const login = await page.request.post('/api/auth/login', {
    headers: { 'X-CSRF': '1' },
    data: { email: 'shopper@talonforge.example', password: 'Password123!', captcha: 'sandbox-captcha-ok' },
  });
  expect(login.status(), await login.text()).toBe(200);
  await addToCart(page, SKU.kit);
  await gotoHydrated(page, '/checkout');

  const form = billingForm(page);
  const email = form.getByLabel('Email', { exact: true });
  await expect(email).toHaveValue('shopper@talonforge.example');
  await expect(email).toBeDisabled();
  // the default billing address ("Office", with the company) and the default shipping one ("Home")
  await expect(form.getByLabel('First Name', { exact: true })).toHaveValue('Jordan');
  await expect(form.getByLabel('Last Name', { exact: true })).toHaveValue('Reyes');
  await expect(form.getByLabel('Company (optional)', { exact: true })).toHaveValue('Reyes Outfitters LLC');
  await expect(form.getByLabel('Address', { exact: true })).toHaveValue('1200 W Main St Suite 300');
  await expect(form.getByLabel('State', { exact: true })).toHaveValue('ID');
  await expect(form.getByLabel('Zip Code', { exact: true })).toHaveValue('83702');
  await expect(form.getByLabel('Shipping address same as billing')).not.toBeChecked();
  await expect(form.getByLabel('Shipping Address', { exact: true })).toHaveValue('418 Harrison Blvd');
  await expect(form.getByLabel('Shipping State', { exact: true })).toHaveValue('ID');
  await expect(page.getByRole('main').getByRole('link', { name: 'Sign in' })).toHaveCount(0);

  await next(page);
  await expect(page).toHaveURL(/stepId=payment/);
});
