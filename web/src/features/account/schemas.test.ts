import { describe, expect, it } from 'vitest';
import { addressSchema, newsletterPreferenceSchema, updatePasswordSchema } from './schemas';

function messages(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  // the first message per field, as the form shows it (react-hook-form's zod resolver)
  const first: Record<string, string> = {};
  for (const issue of result.error?.issues ?? []) first[issue.path.join('.')] ??= issue.message;
  return first;
}

const address = {
  addressName: 'Home',
  firstName: 'Jordan',
  lastName: 'Reyes',
  company: '',
  mainContact: '(208) 555-0142',
  faxContact: '',
  addressLine1: '418 Harrison Blvd',
  addressLine2: '',
  city: 'Boise',
  state: 'ID',
  postalCode: '83702',
  country: 'United States',
  addressType: 10,
  isDefaultBilling: false,
  isDefaultShipping: true,
};

describe('address schema', () => {
  it('accepts an address with only the required fields', () => {
    expect(addressSchema.safeParse(address).success).toBe(true);
  });

  it('requires the spec fields with their messages, and not the optional ones', () => {
    const blank = {
      ...address,
      addressName: '',
      firstName: ' ',
      lastName: '',
      mainContact: '',
      addressLine1: '',
      city: '',
      state: '',
      postalCode: '',
      country: '',
    };
    expect(messages(addressSchema.safeParse(blank))).toEqual({
      addressName: 'Address Name is required',
      firstName: 'First Name is required',
      lastName: 'Last Name is required',
      mainContact: 'Phone is required',
      addressLine1: 'Street Address is required',
      city: 'City is required',
      state: 'State is required',
      postalCode: 'Zip is required',
      country: 'Country is required',
    });
  });

  it('trims the required texts', () => {
    const parsed = addressSchema.parse({ ...address, city: '  Boise ' });
    expect(parsed.city).toBe('Boise');
  });
});

describe('password rules', () => {
  const valid = { currentPassword: 'Password123!', newPassword: 'NewPassword1', confirmPassword: 'NewPassword1' };

  it('accepts a new password of 8 characters or more that is confirmed', () => {
    expect(updatePasswordSchema.safeParse(valid).success).toBe(true);
    expect(
      updatePasswordSchema.safeParse({ ...valid, newPassword: '12345678', confirmPassword: '12345678' }).success,
    ).toBe(true);
  });

  it('needs all three fields', () => {
    expect(
      messages(updatePasswordSchema.safeParse({ currentPassword: '', newPassword: '', confirmPassword: '' })),
    ).toEqual({
      currentPassword: 'Current Password is required',
      newPassword: 'New Password is required',
      confirmPassword: 'Confirm Password is required',
    });
  });

  it("refuses fewer than 8 characters and a confirmation that doesn't match", () => {
    expect(
      messages(updatePasswordSchema.safeParse({ ...valid, newPassword: '1234567', confirmPassword: '1234567' })),
    ).toEqual({
      newPassword: 'Password must be at least 8 characters long',
    });
    expect(messages(updatePasswordSchema.safeParse({ ...valid, confirmPassword: 'NewPassword2' }))).toEqual({
      confirmPassword: 'Passwords do not match',
    });
  });
});

describe('newsletter preference schema', () => {
  it('needs the captcha', () => {
    expect(messages(newsletterPreferenceSchema.safeParse({ subscribed: true, captcha: '' }))).toEqual({
      captcha: 'Captcha is required',
    });
  });
});
