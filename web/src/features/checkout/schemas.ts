import { z } from 'zod/mini';
import { EMAIL_PATTERN } from '../../lib/forms/rules';
import { digitsOf } from './card';
import { COUNTRY, stateCode } from './states';

/** The checkout's messages (spec sections 5 and 8), word for word. */
export const MESSAGES = {
  required: 'Required',
  email: 'Must be a valid email address',
  zip: 'Zip code must be at least 5 digits',
  phone: 'Must be a valid phone number',
  state: 'Required',
} as const;

export const MIN_ZIP_LENGTH = 5;

const text = () => z.string();
const required = () => z.string().check(z.trim(), z.minLength(1, MESSAGES.required));
const email = () =>
  z.string().check(z.trim(), z.minLength(1, MESSAGES.required), z.regex(EMAIL_PATTERN, MESSAGES.email));
const zip = () =>
  z.string().check(z.trim(), z.minLength(1, MESSAGES.required), z.minLength(MIN_ZIP_LENGTH, MESSAGES.zip));
const state = () => z.string().check(z.refine((value) => stateCode(value) !== '', MESSAGES.state));

/** A US phone number: 10 digits, optionally after the country code 1, with the usual separators. */
export function isUsPhone(value: string): boolean {
  if (!/^[\d\s\-().+]*$/.test(value)) return false;
  const digits = digitsOf(value);
  return digits.length === 10 || (digits.length === 11 && digits.startsWith('1'));
}

/**
 * The checkout's form model: what the shopper fills in, one address as one object. It is not the
 * BFF's flat wire shape (`CheckoutForm`); `wire.ts` alone maps between the two.
 */

/** A shopper's address (billing, or shipping when it differs). */
const shopperAddress = () =>
  z.object({
    firstName: required(),
    lastName: required(),
    company: text(),
    phone: text(),
    street: required(),
    city: required(),
    state: state(),
    zip: zip(),
    country: z.literal(COUNTRY),
  });

/** Shipping's address is checked only when it differs from billing (the refinement below). */
const uncheckedAddress = () =>
  z.object({
    firstName: text(),
    lastName: text(),
    company: text(),
    phone: text(),
    street: text(),
    city: text(),
    state: text(),
    zip: text(),
    country: z.literal(COUNTRY),
  });

export const checkoutAddressSchema = shopperAddress();
export type CheckoutAddress = z.infer<typeof checkoutAddressSchema>;

/** The billing and shipping form (spec sections 3 and 5). */
export const billingSchema = z
  .object({
    email: email(),
    billing: shopperAddress(),
    shippingSameAsBilling: z.boolean(),
    shipping: uncheckedAddress(),
    optInNewsletter: z.boolean(),
    shippingMethodId: required(),
  })
  .check(
    z.superRefine((form, ctx) => {
      if (form.shippingSameAsBilling) return;
      // the billing address's rules, messages and all, on the shipping address
      const shipping = checkoutAddressSchema.safeParse(form.shipping);
      for (const issue of shipping.error?.issues ?? []) {
        ctx.issues.push({
          code: 'custom',
          input: form.shipping,
          message: issue.message,
          path: ['shipping', ...issue.path],
        });
      }
    }),
  );

export type BillingForm = z.infer<typeof billingSchema>;

export const emptyCheckoutAddress: CheckoutAddress = {
  firstName: '',
  lastName: '',
  company: '',
  phone: '',
  street: '',
  city: '',
  state: '',
  zip: '',
  country: COUNTRY,
};

export const emptyBillingForm: BillingForm = {
  email: '',
  billing: emptyCheckoutAddress,
  shippingSameAsBilling: true,
  shipping: emptyCheckoutAddress,
  optInNewsletter: false,
  shippingMethodId: '',
};

/** The dealer (FFL) form, only when the cart holds FFL items (spec section 5). */
export const dealerSchema = z.object({
  name: required(),
  street: required(),
  email: email(),
  phone: z.string().check(
    z.trim(),
    z.minLength(1, MESSAGES.required),
    z.refine((value) => isUsPhone(value), MESSAGES.phone),
  ),
  city: required(),
  state: state(),
  zip: zip(),
  country: z.literal(COUNTRY),
});

export type DealerForm = z.infer<typeof dealerSchema>;

export const emptyDealerForm: DealerForm = {
  name: '',
  street: '',
  email: '',
  phone: '',
  city: '',
  state: '',
  zip: '',
  country: COUNTRY,
};

/** The card form: all four fields required (spec section 5). Its values go to the tokenizer only. */
export const cardSchema = z.object({
  cardNumber: required(),
  month: required(),
  year: required(),
  cardCode: required(),
});

export type CardForm = z.infer<typeof cardSchema>;

export const emptyCardForm: CardForm = { cardNumber: '', month: '', year: '', cardCode: '' };
