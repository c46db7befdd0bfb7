import { expect, type APIRequestContext, type Page } from '@playwright/test';

/** The demo shopper of the sandbox (sandbox/README.md, "Demo accounts"). */
export const SHOPPER = { email: 'shopper@talonforge.example', password: 'Password123!' } as const;

/** The captcha token the sandbox always accepts (automated clients). */
export const CAPTCHA_OK = 'sandbox-captcha-ok';

/** Unsafe /api calls need the BFF's CSRF header. */
export const CSRF = { 'X-CSRF': '1' } as const;

/** A new, unique e-mail address for an account that only this test changes. */
export function uniqueEmail(prefix: string): string {
  return `${prefix}-${String(Date.now())}-${Math.random().toString(36).slice(2, 8)}@e2e.example`;
}

/** The sandbox's origin, read from the runtime config (its captcha script lives there). */
export async function sandboxOrigin(request: APIRequestContext): Promise<string> {
  const response = await request.get('/api/config');
  expect(response.ok()).toBe(true);
  const config = (await response.json()) as { captcha: { scriptUrl: string } };
  return new URL(config.captcha.scriptUrl).origin;
}

interface OutboxMail {
  recipient: string;
  kind: string;
  link: string | null;
}

/** The newest e-mail of a kind sent to an address, from the sandbox outbox. */
export async function latestMail(request: APIRequestContext, to: string, kind: string): Promise<OutboxMail> {
  const origin = await sandboxOrigin(request);
  let found: OutboxMail | undefined;
  await expect
    .poll(async () => {
      const response = await request.get(`${origin}/3p/outbox.json?to=${encodeURIComponent(to)}`);
      const mails = (await response.json()) as OutboxMail[];
      found = mails.find((mail) => mail.kind === kind);
      return found !== undefined;
    })
    .toBe(true);
  if (!found) throw new Error(`no ${kind} e-mail to ${to}`);
  return found;
}

/** Signs in through the sign-in form (on the page it is already showing, or /login). */
export async function signInWithForm(page: Page, email: string, password: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Sign in' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password', { exact: true }).fill(password);
  await tickCaptcha(page, form);
  await form.getByRole('button', { name: 'Sign In' }).click();
}

/** Ticks the sandbox's "I'm not a robot" box inside `scope` and waits for its token. */
export async function tickCaptcha(page: Page, scope = page.locator('body')): Promise<void> {
  const widget = scope.getByRole('group', { name: 'reCAPTCHA' });
  await widget.getByRole('checkbox', { name: "I'm not a robot" }).check();
  await expect(widget.getByText('You are verified')).toBeVisible();
}

/**
 * Registers a new account through the BFF with the browser's own cookies, so the page is signed
 * in as it afterwards. Optionally gives it a phone number and an address.
 */
export async function registerThroughApi(
  page: Page,
  options: { email: string; password?: string; withPhoneAndAddress?: boolean },
): Promise<void> {
  const request = page.request;
  const registered = await request.post('/api/auth/register', {
    headers: CSRF,
    data: {
      firstName: 'Riley',
      lastName: 'Tester',
      email: options.email,
      password: options.password ?? 'Password123!',
      confirmPassword: options.password ?? 'Password123!',
      newsletter: false,
      captcha: CAPTCHA_OK,
    },
  });
  expect(registered.status(), await registered.text()).toBeLessThan(300);
  if (!options.withPhoneAndAddress) return;
  const phone = await request.put('/api/account', { headers: CSRF, data: { phoneNumber: '(512) 555-0142' } });
  expect(phone.ok(), await phone.text()).toBe(true);
  const address = await request.post('/api/account/addresses', {
    headers: CSRF,
    data: {
      addressName: 'Home',
      firstName: 'Riley',
      lastName: 'Tester',
      mainContact: '(512) 555-0142',
      addressType: 10,
      addressLine1: '100 Congress Ave',
      city: 'Austin',
      state: 'TX',
      postalCode: '78701',
      country: 'United States',
      isDefaultBilling: true,
      isDefaultShipping: true,
    },
  });
  expect(address.status(), await address.text()).toBe(201);
}

/** Places an order of one Talon Logo Cap (no FFL) for the signed-in account, through the API; its id. */
export async function placeOrderThroughApi(page: Page, email: string): Promise<number> {
  const request = page.request;
  const added = await request.post('/api/cart/items', {
    headers: CSRF,
    data: {
      productId: 'TF-CAP-BLK-SM',
      quantity: 2,
      productName: 'Talon Logo Cap',
      productUrl: '/product/talon%20logo%20cap',
    },
  });
  expect(added.ok(), await added.text()).toBe(true);

  const origin = await sandboxOrigin(request);
  const tokenAnswer = await request.post(`${origin}/3p/accept/v1/tokens`, {
    data: {
      authData: { clientKey: 'sandbox-public-client-key', apiLoginID: 'sandbox-login-id' },
      cardData: {
        cardNumber: '4111111111111111',
        month: '12',
        year: String(new Date().getFullYear() + 2),
        cardCode: '123',
      },
    },
  });
  const token = ((await tokenAnswer.json()) as { opaqueData?: { dataValue: string } }).opaqueData?.dataValue;
  expect(token, 'a payment token from the sandbox tokenizer').toBeTruthy();

  const placed = await request.post('/api/checkout', {
    headers: { ...CSRF, 'Idempotency-Key': `e2e-${String(Date.now())}` },
    data: {
      email,
      firstName: 'Riley',
      lastName: 'Tester',
      mainContact: '(512) 555-0142',
      address: '100 Congress Ave',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      country: 'US',
      shippingSameAsBilling: true,
      shippingMethodId: 1,
      paymentToken: token,
    },
  });
  expect(placed.ok(), await placed.text()).toBe(true);
  const { orderId } = (await placed.json()) as { orderId: number | null };
  if (orderId === null) throw new Error('the checkout answered no order id');
  return orderId;
}
