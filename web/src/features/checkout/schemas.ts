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

const shippingFields = ['shippingFirstName', 'shippingLastName', 'shippingAddress', 'shippingCity'] as const;

/** The billing and shipping form (spec sections 3 and 5). */
export const billingSchema = z
  .object({
    email: email(),
    firstName: required(),
    lastName: required(),
    company: text(),
    mainContact: text(),
    address: required(),
    city: required(),
    state: state(),
    zip: zip(),
    country: z.literal(COUNTRY),
    shippingSameAsBilling: z.boolean(),
    shippingFirstName: text(),
    shippingLastName: text(),
    shippingCompany: text(),
    addressContact: text(),
    shippingAddress: text(),
    shippingCity: text(),
    shippingState: text(),
    shippingZip: text(),
    shippingCountry: z.literal(COUNTRY),
    optInNewsletter: z.boolean(),
    shippingMethodId: required(),
  })
  .check(
    z.superRefine((form, ctx) => {
      if (form.shippingSameAsBilling) return;
      for (const field of shippingFields) {
        if (form[field].trim() === '')
          ctx.issues.push({ code: 'custom', input: form[field], message: MESSAGES.required, path: [field] });
      }
      if (stateCode(form.shippingState) === '') {
        ctx.issues.push({
          code: 'custom',
          input: form.shippingState,
          message: MESSAGES.state,
          path: ['shippingState'],
        });
      }
      const shippingZip = form.shippingZip.trim();
      if (shippingZip.length < MIN_ZIP_LENGTH) {
        const message = shippingZip === '' ? MESSAGES.required : MESSAGES.zip;
        ctx.issues.push({ code: 'custom', input: form.shippingZip, message, path: ['shippingZip'] });
      }
    }),
  );

export type BillingForm = z.infer<typeof billingSchema>;

export const emptyBillingForm: BillingForm = {
  email: '',
  firstName: '',
  lastName: '',
  company: '',
  mainContact: '',
  address: '',
  city: '',
  state: '',
  zip: '',
  country: COUNTRY,
  shippingSameAsBilling: true,
  shippingFirstName: '',
  shippingLastName: '',
  shippingCompany: '',
  addressContact: '',
  shippingAddress: '',
  shippingCity: '',
  shippingState: '',
  shippingZip: '',
  shippingCountry: COUNTRY,
  optInNewsletter: false,
  shippingMethodId: '',
};

/** The dealer (FFL) form, only when the cart holds FFL items (spec section 5). */
export const dealerSchema = z.object({
  dealerName: required(),
  dealerAddress: required(),
  dealerEmail: email(),
  dealerPhone: z.string().check(
    z.trim(),
    z.minLength(1, MESSAGES.required),
    z.refine((value) => isUsPhone(value), MESSAGES.phone),
  ),
  dealerCity: required(),
  dealerState: state(),
  dealerZip: zip(),
  dealerCountry: z.literal(COUNTRY),
});

export type DealerForm = z.infer<typeof dealerSchema>;

export const emptyDealerForm: DealerForm = {
  dealerName: '',
  dealerAddress: '',
  dealerEmail: '',
  dealerPhone: '',
  dealerCity: '',
  dealerState: '',
  dealerZip: '',
  dealerCountry: COUNTRY,
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
