import { describe, expect, it, vi } from 'vitest';
import { ApiError, ApiProblem } from '../../lib/api';
import { cardBrand, expiryYears, EXPIRY_MONTHS, formatCardNumber, maxCardDigits } from './card';
import { createOrderPlacer } from './idempotency';
import { restrictedItems } from './restrictions';
import {
  billingSchema,
  cardSchema,
  dealerSchema,
  emptyBillingForm,
  emptyCardForm,
  emptyDealerForm,
  type BillingForm,
  type DealerForm,
} from './schemas';

/** The first message per field, as the form shows it. */
function messages(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  const byField: Record<string, string> = {};
  for (const issue of result.error?.issues ?? []) {
    const field = issue.path.join('.');
    byField[field] ??= issue.message;
  }
  return byField;
}

const billing: BillingForm = {
  ...emptyBillingForm,
  email: 'jane@example.com',
  billing: {
    ...emptyBillingForm.billing,
    firstName: 'Jane',
    lastName: 'Doe',
    street: '100 Congress Ave',
    city: 'Austin',
    state: 'TX',
    zip: '78701',
  },
  shippingMethodId: '1',
};

const dealer: DealerForm = {
  ...emptyDealerForm,
  name: 'Lone Star Arms',
  street: '200 Ranch Rd',
  email: 'ffl@lonestar.example',
  phone: '(512) 555-0199',
  city: 'Dallas',
  state: 'TX',
  zip: '75201',
};

describe('billing schema', () => {
  it('accepts a complete form with company and phone left empty', () => {
    expect(billingSchema.safeParse(billing).success).toBe(true);
  });

  it("says 'Required' for every required field of an empty form", () => {
    expect(messages(billingSchema.safeParse(emptyBillingForm))).toEqual({
      email: 'Required',
      'billing.firstName': 'Required',
      'billing.lastName': 'Required',
      'billing.street': 'Required',
      'billing.city': 'Required',
      'billing.state': 'Required',
      'billing.zip': 'Required',
      shippingMethodId: 'Required',
    });
  });

  it('checks the e-mail and the zip length with the spec messages', () => {
    const result = billingSchema.safeParse({
      ...billing,
      email: 'jane@',
      billing: { ...billing.billing, zip: '7870' },
    });
    expect(messages(result)).toEqual({
      email: 'Must be a valid email address',
      'billing.zip': 'Zip code must be at least 5 digits',
    });
  });

  it('refuses a state that is not one of the 50 states or DC', () => {
    const inState = (state: string) => ({ ...billing, billing: { ...billing.billing, state } });
    expect(messages(billingSchema.safeParse(inState('PR')))).toEqual({ 'billing.state': 'Required' });
    expect(billingSchema.safeParse(inState('DC')).success).toBe(true);
  });

  it('requires the shipping fields only when shipping differs from billing', () => {
    const different = { ...billing, shippingSameAsBilling: false };
    expect(messages(billingSchema.safeParse(different))).toEqual({
      'shipping.firstName': 'Required',
      'shipping.lastName': 'Required',
      'shipping.street': 'Required',
      'shipping.city': 'Required',
      'shipping.state': 'Required',
      'shipping.zip': 'Required',
    });
    const shipping = {
      ...different.shipping,
      firstName: 'Sam',
      lastName: 'Doe',
      street: '1 Main St',
      city: 'Boise',
      state: 'ID',
      zip: '837',
    };
    const shortZip = { ...different, shipping };
    expect(messages(billingSchema.safeParse(shortZip))).toEqual({
      'shipping.zip': 'Zip code must be at least 5 digits',
    });
    expect(billingSchema.safeParse({ ...shortZip, shipping: { ...shipping, zip: '83702' } }).success).toBe(true);
  });
});

describe('dealer schema', () => {
  it('accepts a complete dealer', () => {
    expect(dealerSchema.safeParse(dealer).success).toBe(true);
  });

  it("says 'Required' for every field of an empty form", () => {
    expect(messages(dealerSchema.safeParse(emptyDealerForm))).toEqual({
      name: 'Required',
      street: 'Required',
      email: 'Required',
      phone: 'Required',
      city: 'Required',
      state: 'Required',
      zip: 'Required',
    });
  });

  it('checks the e-mail, the zip and the US phone pattern (10 digits, optional leading 1)', () => {
    const bad = { ...dealer, email: 'ffl', zip: '752', phone: '555-0199' };
    expect(messages(dealerSchema.safeParse(bad))).toEqual({
      email: 'Must be a valid email address',
      zip: 'Zip code must be at least 5 digits',
      phone: 'Must be a valid phone number',
    });
    for (const phone of ['5125550199', '1 (512) 555-0199', '+1 512-555-0199', '(512) 555-0199']) {
      expect(dealerSchema.safeParse({ ...dealer, phone }).success, phone).toBe(true);
    }
    for (const phone of ['25125550199', '512555019', 'call 5125550199']) {
      expect(messages(dealerSchema.safeParse({ ...dealer, phone })), phone).toEqual({
        phone: 'Must be a valid phone number',
      });
    }
  });
});

describe('card form', () => {
  it('requires all four fields', () => {
    expect(messages(cardSchema.safeParse(emptyCardForm))).toEqual({
      cardNumber: 'Required',
      month: 'Required',
      year: 'Required',
      cardCode: 'Required',
    });
    expect(
      cardSchema.safeParse({ cardNumber: '4111 1111 1111 1111', month: '12', year: '2030', cardCode: '123' }).success,
    ).toBe(true);
  });

  it('groups numbers in fours, at most 16 digits', () => {
    expect(formatCardNumber('4111111111111111')).toBe('4111 1111 1111 1111');
    expect(formatCardNumber('41111111111111119999')).toBe('4111 1111 1111 1111');
    expect(formatCardNumber('5555-5555-5555-4444')).toBe('5555 5555 5555 4444');
    expect(formatCardNumber('601100')).toBe('6011 00');
    expect(maxCardDigits('4111')).toBe(16);
  });

  it('groups American Express 4-6-5, at most 15 digits', () => {
    expect(formatCardNumber('378282246310005')).toBe('3782 822463 10005');
    expect(formatCardNumber('3782822463100059')).toBe('3782 822463 10005');
    expect(formatCardNumber('3400000')).toBe('3400 000');
    expect(maxCardDigits('37')).toBe(15);
    expect(maxCardDigits('34')).toBe(15);
  });

  it('detects the brand from the number', () => {
    expect(cardBrand('4111 1111 1111 1111')).toBe('Visa');
    expect(cardBrand('5555 5555 5555 4444')).toBe('Mastercard');
    expect(cardBrand('2221 0000 0000 0009')).toBe('Mastercard');
    expect(cardBrand('3782 822463 10005')).toBe('American Express');
    expect(cardBrand('6011 0000 0000 0012')).toBe('Discover');
    expect(cardBrand('65')).toBe('Discover');
    expect(cardBrand('1234')).toBeNull();
    expect(cardBrand('')).toBeNull();
  });

  it('offers months 01 to 12 and years from this one plus nine', () => {
    expect(EXPIRY_MONTHS).toEqual(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12']);
    expect(expiryYears(new Date(2026, 10, 25))).toEqual([
      '2026',
      '2027',
      '2028',
      '2029',
      '2030',
      '2031',
      '2032',
      '2033',
      '2034',
      '2035',
    ]);
  });
});

describe('restrictions', () => {
  const line = (id: number, restrictions: { ffl?: boolean; states?: string[]; zips?: string[] }) => ({
    id,
    isFflItem: restrictions.ffl ?? false,
    restrictedStates: restrictions.states ?? [],
    restrictedZips: restrictions.zips ?? [],
  });
  const magazine = line(1, { states: ['CA', 'NY', 'MA'], zips: ['60601'] });
  const brake = line(2, { zips: ['10001', '94105'] });
  const rifle = line(3, { ffl: true, states: ['CA'], zips: ['94105'] });
  const items = [magazine, brake, rifle];

  it('blocks non-FFL items by the billing state and zip when shipping is the same', () => {
    const livingIn = (state: string, zip: string) => ({ ...billing, billing: { ...billing.billing, state, zip } });
    expect(restrictedItems(items, livingIn('NY', '10001'), dealer).map((item) => item.id)).toEqual([1, 2]);
    expect(restrictedItems(items, livingIn('IL', '60601-1234'), dealer).map((item) => item.id)).toEqual([1]);
    expect(restrictedItems(items, billing, dealer)).toEqual([]);
  });

  it('checks the shipping address when it differs from billing', () => {
    const shipToCalifornia = {
      ...billing,
      shippingSameAsBilling: false,
      shipping: { ...billing.billing, state: 'CA', zip: '90001' },
    };
    expect(restrictedItems(items, shipToCalifornia, dealer).map((item) => item.id)).toEqual([1]);
  });

  it('checks FFL items against the dealer, not the shopper', () => {
    const shopperInCalifornia = { ...billing, billing: { ...billing.billing, state: 'CA', zip: '90001' } };
    expect(restrictedItems([rifle], shopperInCalifornia, dealer)).toEqual([]);
    expect(restrictedItems([rifle], billing, { ...dealer, state: 'CA' }).map((item) => item.id)).toEqual([3]);
    expect(restrictedItems([rifle], billing, { ...dealer, zip: '94105' }).map((item) => item.id)).toEqual([3]);
  });
});

describe('placing an order exactly once', () => {
  const placed = { orderId: 100001, success: true, message: 'Your order has been placed' };

  it('sends a retried request with the same key and body', async () => {
    const send = vi
      .fn<(body: string, key: string) => Promise<typeof placed>>()
      .mockRejectedValueOnce(new ApiError(0, 'Failed to fetch'))
      .mockRejectedValueOnce(new ApiError(503, 'Service Unavailable'))
      .mockResolvedValueOnce(placed);
    let keys = 0;
    const placer = createOrderPlacer({ send, newKey: () => `key-${String((keys += 1))}` });

    await expect(placer.place(() => Promise.resolve('body-1'))).resolves.toEqual(placed);
    expect(send.mock.calls).toEqual([
      ['body-1', 'key-1'],
      ['body-1', 'key-1'],
      ['body-1', 'key-1'],
    ]);
  });

  it('uses a new key for each attempt, and does not retry a definitive failure', async () => {
    const declined = new ApiProblem({
      type: 'about:blank',
      title: 'Unprocessable',
      status: 422,
      detail: 'This transaction has been declined.',
      code: 'payment_declined',
    });
    const send = vi
      .fn<(body: string, key: string) => Promise<typeof placed>>()
      .mockRejectedValueOnce(declined)
      .mockResolvedValueOnce(placed);
    let keys = 0;
    const placer = createOrderPlacer({ send, newKey: () => `key-${String((keys += 1))}` });

    await expect(placer.place(() => Promise.resolve('declined card'))).rejects.toBe(declined);
    await expect(placer.place(() => Promise.resolve('another card'))).resolves.toEqual(placed);
    expect(send.mock.calls).toEqual([
      ['declined card', 'key-1'],
      ['another card', 'key-2'],
    ]);
  });

  it('joins a running attempt instead of starting a second one (double click)', async () => {
    let answer: (value: typeof placed) => void = () => undefined;
    const send = vi.fn(() => new Promise<typeof placed>((resolve) => (answer = resolve)));
    const prepare = vi.fn(() => Promise.resolve('body'));
    const placer = createOrderPlacer({ send, newKey: () => 'key' });

    const first = placer.place(prepare);
    const second = placer.place(prepare);
    expect(placer.isPlacing()).toBe(true);
    await vi.waitFor(() => {
      expect(send).toHaveBeenCalledTimes(1);
    });
    answer(placed);
    await expect(Promise.all([first, second])).resolves.toEqual([placed, placed]);
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledTimes(1);
    expect(placer.isPlacing()).toBe(false);
  });

  it('gives up after the retries and leaves the next attempt free', async () => {
    const lost = new ApiError(0, 'Failed to fetch');
    const send = vi.fn<(body: string, key: string) => Promise<typeof placed>>().mockRejectedValue(lost);
    const placer = createOrderPlacer({ send, retries: 1, newKey: () => 'key' });
    await expect(placer.place(() => Promise.resolve('body'))).rejects.toBe(lost);
    expect(send).toHaveBeenCalledTimes(2);
    expect(placer.isPlacing()).toBe(false);
  });
});
