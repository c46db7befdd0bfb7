import { z } from 'zod/mini';
import type { DealerRegistrationForm } from '../../api/types';

/**
 * The dealer registration form's rules (spec §5 "Dealer registration"), one schema for the form.
 * Every rule lives in one refinement over the whole form, so the conditional rules (locator
 * address, FFL/SOT) are checked together with the plain ones and every message shows at once.
 */

export const REQUIRED = 'Required';
export const INVALID_WEBSITE = 'Website must be a valid URL';
export const INVALID_PHONE = 'Must be a valid phone number';
export const INVALID_EMAIL = 'Must be a valid email address';
export const CAPTCHA_REQUIRED = 'Please complete the reCAPTCHA';
export const ACCEPTED_DOCUMENT_EXTENSIONS = ['pdf', 'tif', 'tiff'] as const;
export const DOCUMENT_ACCEPT = '.pdf,.tif,.tiff,application/pdf,image/tiff';
/** Each document must be smaller than this, as the BFF counts (`DEALER_DOCUMENTS`). */
export const DOCUMENT_MAX_BYTES_EXCLUSIVE = 10_000_000;
/** What the form says before a file is sent: its types and its size limit. */
export const DOCUMENT_HINT = 'PDF, TIF or TIFF, under 10 MB';

/** The server's rules, the same patterns (contract: `DealerRegistrationForm`). */
const WEBSITE_PATTERN =
  /^\s*(?:https?:\/\/)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?::[0-9]{1,5})?(?:[/?#]\S*)?\s*$/i;
const PHONE_PATTERN = /^\s*[ ().+-]*(?:1[ ().+-]*)?(?:[0-9][ ().+-]*){10}\s*$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const COMPANY_ADDRESS_FIELDS = ['streetAddress', 'city', 'state', 'postalCode', 'country'] as const;
export const LOCATOR_ADDRESS_FIELDS = [
  'locatorStreetAddress',
  'locatorCity',
  'locatorState',
  'locatorPostalCode',
  'locatorCountry',
] as const;
const REQUIRED_TEXT_FIELDS = [
  'company',
  'website',
  'phone',
  'email',
  'firstName',
  'lastName',
  ...COMPANY_ADDRESS_FIELDS,
] as const;

/** The message for a document that is not a pdf or tif/tiff, naming the file (as the server words it). */
export function documentTypeMessage(fileName: string): string {
  return `${fileName} is not an accepted file type: only pdf, tif and tiff files are accepted`;
}

/** The message for a document of the limit or more, naming the file (as the server words it). */
export function documentSizeMessage(fileName: string): string {
  return `${fileName} is too large: each file must be under 10 MB`;
}

export function isAcceptedDocument(file: File): boolean {
  const extension = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase();
  return extension !== undefined && (ACCEPTED_DOCUMENT_EXTENSIONS as readonly string[]).includes(extension);
}

const document = z.nullable(z.custom<File>((value) => typeof File !== 'undefined' && value instanceof File));

export const dealerRegistrationSchema = z
  .object({
    company: z.string(),
    website: z.string(),
    phone: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    streetAddress: z.string(),
    city: z.string(),
    state: z.string(),
    postalCode: z.string(),
    country: z.string(),
    appearInDealerLocator: z.boolean(),
    useThisAddressInDealerLocator: z.boolean(),
    locatorStreetAddress: z.string(),
    locatorCity: z.string(),
    locatorState: z.string(),
    locatorPostalCode: z.string(),
    locatorCountry: z.string(),
    hasFflSot: z.boolean(),
    fflNumber: z.string(),
    sotEin: z.string(),
    fflDocument: document,
    sotDocument: document,
    captcha: z.string(),
  })
  .check(
    z.superRefine((form, ctx) => {
      const issue = (path: keyof typeof form, message: string) => {
        ctx.issues.push({ code: 'custom', message, path: [path], input: form[path] });
      };
      const blank = (value: string) => value.trim() === '';

      for (const field of REQUIRED_TEXT_FIELDS) if (blank(form[field])) issue(field, REQUIRED);
      if (!blank(form.website) && !WEBSITE_PATTERN.test(form.website)) issue('website', INVALID_WEBSITE);
      if (!blank(form.phone) && !PHONE_PATTERN.test(form.phone)) issue('phone', INVALID_PHONE);
      if (!blank(form.email) && !EMAIL_PATTERN.test(form.email.trim())) issue('email', INVALID_EMAIL);

      if (form.appearInDealerLocator && !form.useThisAddressInDealerLocator) {
        for (const field of LOCATOR_ADDRESS_FIELDS) if (blank(form[field])) issue(field, REQUIRED);
      }

      if (form.hasFflSot) {
        if (blank(form.fflNumber)) issue('fflNumber', REQUIRED);
        if (!form.fflDocument) issue('fflDocument', REQUIRED);
        // checked before upload, naming the file (documents are sent only with FFL/SOT)
        for (const field of ['fflDocument', 'sotDocument'] as const) {
          const file = form[field];
          if (file && !isAcceptedDocument(file)) issue(field, documentTypeMessage(file.name));
          // refused before a byte is sent, not after 10 MB or more went up a slow uplink
          else if (file && file.size >= DOCUMENT_MAX_BYTES_EXCLUSIVE) issue(field, documentSizeMessage(file.name));
        }
      }

      if (blank(form.captcha)) issue('captcha', CAPTCHA_REQUIRED);
    }),
  );

export type DealerRegistrationValues = z.infer<typeof dealerRegistrationSchema>;

export const emptyDealerRegistration: DealerRegistrationValues = {
  company: '',
  website: '',
  phone: '',
  email: '',
  firstName: '',
  lastName: '',
  streetAddress: '',
  city: '',
  state: '',
  postalCode: '',
  country: 'United States',
  appearInDealerLocator: true,
  useThisAddressInDealerLocator: true,
  locatorStreetAddress: '',
  locatorCity: '',
  locatorState: '',
  locatorPostalCode: '',
  locatorCountry: 'United States',
  hasFflSot: false,
  fflNumber: '',
  sotEin: '',
  fflDocument: null,
  sotDocument: null,
  captcha: '',
};

/**
 * The text parts the server receives: booleans as `true`/`false`; with 'use this address' the
 * locator address is the company address; out of the locator, no locator address at all.
 */
export function registrationParts(values: DealerRegistrationValues): DealerRegistrationForm {
  const trimmed = (value: string) => value.trim();
  const parts: DealerRegistrationForm = {
    company: trimmed(values.company),
    website: trimmed(values.website),
    phone: trimmed(values.phone),
    email: trimmed(values.email),
    firstName: trimmed(values.firstName),
    lastName: trimmed(values.lastName),
    streetAddress: trimmed(values.streetAddress),
    city: trimmed(values.city),
    state: trimmed(values.state),
    postalCode: trimmed(values.postalCode),
    country: trimmed(values.country),
    appearInDealerLocator: String(values.appearInDealerLocator),
    useThisAddressInDealerLocator: String(values.useThisAddressInDealerLocator),
    hasFflSot: String(values.hasFflSot),
    captcha: values.captcha,
  };
  if (values.appearInDealerLocator) {
    const same = values.useThisAddressInDealerLocator;
    parts.locatorStreetAddress = same ? parts.streetAddress : trimmed(values.locatorStreetAddress);
    parts.locatorCity = same ? parts.city : trimmed(values.locatorCity);
    parts.locatorState = same ? parts.state : trimmed(values.locatorState);
    parts.locatorPostalCode = same ? parts.postalCode : trimmed(values.locatorPostalCode);
    parts.locatorCountry = same ? parts.country : trimmed(values.locatorCountry);
  }
  if (values.hasFflSot) {
    parts.fflNumber = trimmed(values.fflNumber);
    parts.sotEin = trimmed(values.sotEin);
  }
  return parts;
}
