import { z } from 'zod/mini';
import { captchaToken, newPassword, PASSWORDS_DO_NOT_MATCH, requiredText } from '../../lib/forms/rules';
import { proDealFileProblems } from './pro-deal-files';

/** One schema per account form; the messages are the spec's ('<Field name> is required', …). */

const optionalText = () => z.string();

/** Address form: the required fields of spec section 5, the others optional. */
export const addressSchema = z.object({
  addressName: requiredText('Address Name'),
  firstName: requiredText('First Name'),
  lastName: requiredText('Last Name'),
  company: optionalText(),
  mainContact: requiredText('Phone'),
  faxContact: optionalText(),
  addressLine1: requiredText('Street Address'),
  addressLine2: optionalText(),
  city: requiredText('City'),
  state: requiredText('State'),
  postalCode: requiredText('Zip'),
  country: requiredText('Country'),
  addressType: z.number(),
  isDefaultBilling: z.boolean(),
  isDefaultShipping: z.boolean(),
});
export type AddressValues = z.infer<typeof addressSchema>;

/** Edit Information: no validation (spec); the e-mail is shown read-only and never sent. */
export const profileSchema = z.object({
  firstName: z.string(),
  lastName: z.string(),
  phoneNumber: z.string(),
});
export type ProfileValues = z.infer<typeof profileSchema>;

/** Update Password: all three required, plus the two password rules. */
export const updatePasswordSchema = z
  .object({
    currentPassword: requiredText('Current Password'),
    newPassword: newPassword('New Password'),
    confirmPassword: requiredText('Confirm Password'),
  })
  .check(
    z.refine((values) => values.newPassword === values.confirmPassword, {
      error: PASSWORDS_DO_NOT_MATCH,
      path: ['confirmPassword'],
      // only once both are filled in: the empty one has its own message
      when: (payload) => {
        const value = payload.value as Partial<Record<string, unknown>>;
        return typeof value.confirmPassword === 'string' && value.confirmPassword !== '';
      },
    }),
  );
export type UpdatePasswordValues = z.infer<typeof updatePasswordSchema>;

/** Newsletter preference: the checkbox plus the captcha (required). */
export const newsletterPreferenceSchema = z.object({
  subscribed: z.boolean(),
  captcha: captchaToken(),
});
export type NewsletterPreferenceValues = z.infer<typeof newsletterPreferenceSchema>;

/** Pro Deal: at least one document, each of an accepted type and under 0.5 MB; one message per refused file. */
export const proDealSchema = z.object({
  documents: z.array(z.custom<File>((value) => value instanceof File)).check(
    z.superRefine((files, context) => {
      for (const message of proDealFileProblems(files)) context.addIssue({ code: 'custom', message, input: files });
    }),
  ),
});
export type ProDealValues = z.infer<typeof proDealSchema>;
