import { describe, expect, it } from 'vitest';
import {
  CAPTCHA_REQUIRED,
  dealerRegistrationSchema,
  emptyDealerRegistration,
  registrationParts,
  type DealerRegistrationValues,
} from './registration-schema';

const valid: DealerRegistrationValues = {
  ...emptyDealerRegistration,
  company: 'Ridge Outfitters',
  website: 'https://ridge.example',
  phone: '(208) 555-0100',
  email: 'owner@ridge.example',
  firstName: 'Dana',
  lastName: 'Reyes',
  streetAddress: '1 Main St',
  city: 'Boise',
  state: 'ID',
  postalCode: '83702',
  country: 'United States',
  captcha: 'token',
};

function errorsOf(values: DealerRegistrationValues): Record<string, string> {
  const result = dealerRegistrationSchema.safeParse(values);
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]));
}

const pdf = (name = 'licence.pdf') => new File(['%PDF-1.4'], name, { type: 'application/pdf' });

describe('dealer registration rules', () => {
  it('accepts a complete form', () => {
    expect(errorsOf(valid)).toEqual({});
  });

  it("requires every company, contact and address field with 'Required', and the captcha", () => {
    expect(errorsOf({ ...emptyDealerRegistration, country: '' })).toEqual({
      company: 'Required',
      website: 'Required',
      phone: 'Required',
      email: 'Required',
      firstName: 'Required',
      lastName: 'Required',
      streetAddress: 'Required',
      city: 'Required',
      state: 'Required',
      postalCode: 'Required',
      country: 'Required',
      captcha: 'Please complete the reCAPTCHA',
    });
    expect(CAPTCHA_REQUIRED).toBe('Please complete the reCAPTCHA');
    expect(errorsOf({ ...valid, company: '   ' })).toEqual({ company: 'Required' });
  });

  it('checks the website, phone and e-mail', () => {
    for (const website of ['not a url', 'ridge', 'ftp://ridge.example', 'https://ridge']) {
      expect(errorsOf({ ...valid, website })).toEqual({ website: 'Website must be a valid URL' });
    }
    for (const website of ['ridge.example', 'http://www.ridge.example:8080/shop?x=1', 'HTTPS://RIDGE.EXAMPLE']) {
      expect(errorsOf({ ...valid, website })).toEqual({});
    }
    for (const phone of ['555-0100', '12345678901234', '(208) 555-01OO', '2 208 555 0100']) {
      expect(errorsOf({ ...valid, phone })).toEqual({ phone: 'Must be a valid phone number' });
    }
    for (const phone of ['2085550100', '1 (208) 555-0100', '+1 208.555.0100', '208-555-0100']) {
      expect(errorsOf({ ...valid, phone })).toEqual({});
    }
    for (const email of ['owner', 'owner@ridge', 'owner @ridge.example']) {
      expect(errorsOf({ ...valid, email })).toEqual({ email: 'Must be a valid email address' });
    }
  });

  it("requires the locator address only when listed in the locator without 'use this address'", () => {
    const locatorErrors = {
      locatorStreetAddress: 'Required',
      locatorCity: 'Required',
      locatorState: 'Required',
      locatorPostalCode: 'Required',
      locatorCountry: 'Required',
    };
    const own = { ...valid, useThisAddressInDealerLocator: false, locatorCountry: '' };
    expect(errorsOf(own)).toEqual(locatorErrors);
    expect(errorsOf({ ...own, appearInDealerLocator: false })).toEqual({});
    expect(errorsOf({ ...own, useThisAddressInDealerLocator: true })).toEqual({});
    expect(
      errorsOf({
        ...own,
        locatorStreetAddress: '9 Depot Rd',
        locatorCity: 'Nampa',
        locatorState: 'ID',
        locatorPostalCode: '83651',
        locatorCountry: 'United States',
      }),
    ).toEqual({});
  });

  it('with FFL/SOT requires the FFL number and document; SOT/EIN and its document are optional', () => {
    expect(errorsOf({ ...valid, hasFflSot: true })).toEqual({ fflNumber: 'Required', fflDocument: 'Required' });
    expect(errorsOf({ ...valid, hasFflSot: true, fflNumber: '1-23-456', fflDocument: pdf() })).toEqual({});
    expect(
      errorsOf({
        ...valid,
        hasFflSot: true,
        fflNumber: '1-23-456',
        fflDocument: pdf('ffl.TIFF'),
        sotDocument: pdf('sot.tif'),
      }),
    ).toEqual({});
  });

  // Issue 46, finding 1: the form states the size limit and holds to it before sending.
  it('refuses a document of 10 MB or more before it is sent, naming the file', () => {
    const withFfl = { ...valid, hasFflSot: true, fflNumber: '1-23-456' };
    const sized = (bytes: number) => new File([new Uint8Array(bytes)], 'licence.pdf', { type: 'application/pdf' });
    expect(errorsOf({ ...withFfl, fflDocument: sized(9_999_999) })).toEqual({});
    expect(errorsOf({ ...withFfl, fflDocument: sized(10_000_000) })).toEqual({
      fflDocument: 'licence.pdf is too large: each file must be under 10 MB',
    });
  });

  it('accepts only pdf, tif and tiff documents, naming the refused file', () => {
    const withFfl = { ...valid, hasFflSot: true, fflNumber: '1-23-456' };
    expect(errorsOf({ ...withFfl, fflDocument: new File(['x'], 'licence.png', { type: 'image/png' }) })).toEqual({
      fflDocument: 'licence.png is not an accepted file type: only pdf, tif and tiff files are accepted',
    });
    expect(errorsOf({ ...withFfl, fflDocument: pdf(), sotDocument: new File(['x'], 'sot.pdf.exe') })).toEqual({
      sotDocument: 'sot.pdf.exe is not an accepted file type: only pdf, tif and tiff files are accepted',
    });
    expect(errorsOf({ ...withFfl, fflDocument: new File(['x'], 'licence') })).toEqual({
      fflDocument: 'licence is not an accepted file type: only pdf, tif and tiff files are accepted',
    });
  });
});

describe('registrationParts', () => {
  it("copies the company address into the locator address with 'use this address', booleans as text", () => {
    expect(registrationParts({ ...valid, locatorCity: 'stale' })).toMatchObject({
      appearInDealerLocator: 'true',
      useThisAddressInDealerLocator: 'true',
      hasFflSot: 'false',
      locatorStreetAddress: '1 Main St',
      locatorCity: 'Boise',
      locatorState: 'ID',
      locatorPostalCode: '83702',
      locatorCountry: 'United States',
    });
  });

  it('keeps its own locator address, and drops it out of the locator', () => {
    const own = {
      ...valid,
      useThisAddressInDealerLocator: false,
      locatorStreetAddress: '9 Depot Rd',
      locatorCity: 'Nampa',
      locatorState: 'ID',
      locatorPostalCode: '83651',
    };
    expect(registrationParts(own)).toMatchObject({ locatorStreetAddress: '9 Depot Rd', locatorCity: 'Nampa' });
    const unlisted = registrationParts({ ...own, appearInDealerLocator: false });
    expect(unlisted.appearInDealerLocator).toBe('false');
    expect(unlisted.locatorCity).toBeUndefined();
    expect(unlisted.fflNumber).toBeUndefined();
  });
});
