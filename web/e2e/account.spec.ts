import { type Page } from '@playwright/test';
import {
  latestMail,
  placeOrderThroughApi,
  registerThroughApi,
  SHOPPER,
  signInWithForm,
  tickCaptcha,
  uniqueEmail,
} from './support/account';
import { expect, expectNoAxeViolations, test } from './support/frame';
import { gotoHydrated } from './support/hydration';

/**
 * The account area against the real bff + sandbox (issue 14). The demo shopper is only read;
 * every journey that changes an account uses one registered for it.
 */

function main(page: Page) {
  return page.getByRole('main');
}

async function heading(page: Page, name: string) {
  await expect(main(page).getByRole('heading', { level: 1, name })).toBeVisible();
}

test('a signed-out visit returns after sign-in, and every account page shows its texts without axe violations', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await gotoHydrated(page, '/profile/address-book');
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile%2Faddress-book$/);
  await signInWithForm(page, SHOPPER.email, SHOPPER.password);
  await expect(page).toHaveURL(/\/profile\/address-book$/);

  // Address Book
  await heading(page, 'Address Book');
  const menu = page.getByRole('navigation', { name: 'Account' });
  await expect(menu.getByRole('link', { name: 'Address Book' })).toHaveAttribute('aria-current', 'page');
  await expect(menu.getByRole('button', { name: 'Logout' })).toBeVisible();
  await expect(main(page).getByRole('heading', { name: 'Default Addresses' })).toBeVisible();
  const shipping = main(page).getByRole('region', { name: 'Default shipping Address' });
  await expect(shipping).toContainText('Jordan Reyes');
  await expect(shipping).toContainText('418 Harrison Blvd');
  await expect(shipping.getByRole('link', { name: 'Change shipping Address' })).toBeVisible();
  await expect(main(page).getByRole('region', { name: 'Default billing Address' })).toContainText('T:');
  await expect(main(page).getByRole('heading', { name: 'Additional Address Entries' })).toBeVisible();
  await expect(main(page).getByRole('link', { name: 'Add New Address' })).toBeVisible();
  await expectNoAxeViolations(page);

  // My Account, through the menu
  await menu.getByRole('link', { name: 'My Account' }).click();
  await heading(page, 'My Account');
  const contact = main(page).getByRole('region', { name: 'Contact Information' });
  await expect(contact).toContainText('Jordan Reyes');
  await expect(contact).toContainText('shopper@talonforge.example');
  await expect(contact).toContainText('(208) 555-0142');
  await expect(contact.getByRole('link', { name: 'Change Password' })).toBeVisible();
  await expect(main(page).getByRole('region', { name: 'Newsletters' })).toContainText(
    'You are subscribed to our newsletter.',
  );
  await expect(main(page).getByRole('region', { name: 'Email Verification' })).toContainText('Verified');
  await expect(main(page).getByRole('link', { name: 'Manage Addresses' })).toBeVisible();
  await expect(main(page).getByRole('link', { name: 'Back' })).toHaveCount(0);
  await expectNoAxeViolations(page);

  const pages: { path: string; title: string; texts: (string | RegExp)[] }[] = [
    {
      path: '/profile/account-information',
      title: 'Account Information',
      texts: ['Contact Information', 'Email Verification'],
    },
    { path: '/profile/details', title: 'Edit Information', texts: ['Your e-mail address cannot be changed.'] },
    { path: '/profile/update-password', title: 'Update Password', texts: ['Current Password', 'Confirm Password'] },
    { path: '/profile/newsletter', title: 'Newsletter Subscription', texts: ['You are subscribed to our newsletter.'] },
    { path: '/profile/address-book/new', title: 'Add New Address', texts: ['Use as my default billing address'] },
    { path: '/profile/orders', title: 'My Orders', texts: [/You have placed no orders|Payment Status/] },
    { path: '/profile/my-reviews', title: 'My Reviews', texts: [] },
    {
      path: '/profile/discount-programs',
      title: 'Discount Programs',
      texts: ['LE / MIL', 'Pro Deal', 'You have not applied yet.'],
    },
    {
      path: '/profile/pro-deal',
      title: 'Pro Deal',
      texts: ['Dealers, FFLs and retail employees are ineligible for the Pro Deal program.', 'A work ID or badge'],
    },
    { path: '/profile/le-mil', title: 'LE / MIL Verification', texts: ['Verify with VeriPass'] },
  ];
  for (const { path, title, texts } of pages) {
    await gotoHydrated(page, path);
    await heading(page, title);
    await expect(main(page).getByRole('link', { name: 'Back' })).toBeVisible();
    for (const text of texts) await expect(main(page).getByText(text).first()).toBeVisible();
    await expectNoAxeViolations(page);
  }

  // the edit form of an address, prefilled
  await gotoHydrated(page, '/profile/address-book');
  await main(page).getByRole('link', { name: 'Change billing Address' }).click();
  await heading(page, 'Edit Address');
  await expect(main(page).getByLabel('Company')).not.toHaveValue('');
  await expect(main(page).getByRole('checkbox', { name: 'Use as my default billing address' })).toBeChecked();
  await main(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(/\/profile\/address-book$/);
});

test('register, verify the e-mail from the outbox, edit the information and the address book, change the password, log out and sign in with it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = uniqueEmail('journey');
  await gotoHydrated(page, '/register');
  const signUp = page.getByRole('form', { name: 'Create an account' });
  await signUp.getByLabel('First Name').fill('Riley');
  await signUp.getByLabel('Last Name').fill('Tester');
  await signUp.getByLabel('Email').fill(email);
  await signUp.getByLabel('Password', { exact: true }).fill('Password123!');
  await signUp.getByLabel('Confirm Password').fill('Password123!');
  await tickCaptcha(page, signUp);
  await signUp.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByRole('banner').getByRole('link', { name: 'Account' })).toBeVisible();

  // the unverified account can ask for the link again
  await gotoHydrated(page, '/profile');
  const verification = main(page).getByRole('region', { name: 'Email Verification' });
  await verification.getByRole('button', { name: 'Resend Verification Link' }).click();
  await expect(page.getByText('A verification link was sent to your email')).toBeVisible();

  // the link from the outbox verifies it
  const mail = await latestMail(page.request, email, 'verification');
  expect(mail.link).toContain('/verify-email?token=');
  // the registration verification (spec: route table), held a moment so its heading can be read
  await page.route('**/api/auth/verify-registration', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await route.continue();
  });
  await gotoHydrated(page, new URL(mail.link ?? '').pathname + new URL(mail.link ?? '').search);
  await expect(page.getByRole('heading', { level: 1, name: 'VERIFYING REGISTRATION...' })).toBeVisible();
  await expect(page.getByText('Registration verified successfully')).toBeVisible();
  await expect(page.getByText('Email verified successfully')).toHaveCount(0);
  await expect(page).toHaveURL(/\/$/);
  await gotoHydrated(page, '/profile');
  await expect(main(page).getByRole('region', { name: 'Email Verification' })).toContainText('Verified');

  // Edit Information: the phone is formatted as typed
  await main(page).getByRole('region', { name: 'Contact Information' }).getByRole('link', { name: 'Edit' }).click();
  await heading(page, 'Edit Information');
  await expect(main(page).getByLabel('Email')).toHaveValue(email);
  await main(page).getByLabel('Phone').pressSequentially('2085550177');
  await expect(main(page).getByLabel('Phone')).toHaveValue('(208) 555-0177');
  await main(page).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your account information has been saved.')).toBeVisible();
  await expect(main(page).getByRole('region', { name: 'Contact Information' })).toContainText('(208) 555-0177');

  // the address book: empty, then one address (default for both), edited
  await gotoHydrated(page, '/profile/address-book');
  await expect(main(page).getByRole('heading', { name: 'No addresses found' })).toBeVisible();
  await expect(main(page).getByText('Add a new address to your address book')).toBeVisible();
  await main(page).getByRole('link', { name: 'Add New Address' }).click();
  await heading(page, 'Add New Address');
  const form = page.getByRole('form', { name: 'Address' });
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByText('Address Name is required')).toBeVisible();
  await expect(form.getByText('Street Address is required')).toBeVisible();
  await expect(form.getByText('State is required')).toBeVisible();
  await expectNoAxeViolations(page);
  await form.getByLabel('Address Name').fill('Home');
  await form.getByLabel('Street Address', { exact: true }).fill('418 Harrison Blvd');
  await form.getByLabel('City').fill('Boise');
  await form.getByRole('combobox', { name: 'State' }).selectOption('ID');
  await form.getByLabel('Zip').fill('83702');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/profile\/address-book$/);
  const shipping = main(page).getByRole('region', { name: 'Default shipping Address' });
  await expect(shipping).toContainText('418 Harrison Blvd');
  await expect(shipping.getByRole('link', { name: '(208) 555-0177' })).toHaveAttribute('href', 'tel:2085550177');
  await expect(main(page).getByRole('region', { name: 'Default billing Address' })).toContainText('Boise, ID 83702');

  await shipping.getByRole('link', { name: 'Change shipping Address' }).click();
  await form.getByLabel('City').fill('Meridian');
  await form.getByLabel('Zip').fill('83642');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/profile\/address-book$/);
  await expect(shipping).toContainText('Meridian, ID 83642');

  // a second address, not a default: listed apart, deleted after the confirmation
  await main(page).getByRole('link', { name: 'Add New Address' }).click();
  await form.getByLabel('Address Name').fill('Cabin');
  await form.getByLabel('Street Address', { exact: true }).fill('7 Lake Rd');
  await form.getByLabel('City').fill('McCall');
  await form.getByRole('combobox', { name: 'State' }).selectOption('ID');
  await form.getByLabel('Zip').fill('83638');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/profile\/address-book$/);
  await main(page).getByRole('button', { name: 'Delete Address Cabin' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Address' });
  await expect(dialog).toContainText('Cabin');
  await expectNoAxeViolations(page);
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(main(page).getByRole('button', { name: 'Delete Address Cabin' })).toHaveCount(0);
  await expect(main(page).getByText('You have no other address entries in your address book.')).toBeVisible();
  await expect(shipping).toContainText('Meridian');

  // Update Password
  await gotoHydrated(page, '/profile/update-password');
  const password = page.getByRole('form', { name: 'Update Password' });
  await password.getByLabel('Current Password').fill('Password123!');
  await password.getByLabel('New Password').fill('short');
  await password.getByLabel('Confirm Password').fill('short');
  await password.getByRole('button', { name: 'Update Password' }).click();
  await expect(password.getByText('Password must be at least 8 characters long')).toBeVisible();
  await password.getByLabel('New Password').fill('NewPassword456!');
  await password.getByLabel('Confirm Password').fill('NewPassword456?');
  await password.getByRole('button', { name: 'Update Password' }).click();
  await expect(password.getByText('Passwords do not match')).toBeVisible();
  await password.getByLabel('Confirm Password').fill('NewPassword456!');
  await password.getByRole('button', { name: 'Update Password' }).click();
  await expect(page.getByText('Password updated successfully')).toBeVisible();

  // Logout, then sign in with the new password
  await page.getByRole('navigation', { name: 'Account' }).getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('banner').getByRole('link', { name: 'Sign in' })).toBeVisible();
  await gotoHydrated(page, '/profile');
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile$/);
  await signInWithForm(page, email, 'NewPassword456!');
  await expect(page).toHaveURL(/\/profile$/);
  await expect(main(page).getByRole('region', { name: 'Contact Information' })).toContainText(email);
});

test('an order placed through the API, the newsletter, Pro Deal documents and LE/MIL through VeriPass', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = uniqueEmail('programs');
  await gotoHydrated(page, '/');
  await registerThroughApi(page, { email, withPhoneAndAddress: true });
  const orderId = await placeOrderThroughApi(page, email);

  // My Orders and the order's details
  await gotoHydrated(page, '/profile/orders');
  await heading(page, 'My Orders');
  const table = main(page).getByRole('table');
  const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: String(orderId) }) });
  const today = new Intl.DateTimeFormat('en-US', { month: '2-digit', day: '2-digit', year: 'numeric' }).format(
    new Date(),
  );
  await expect(row).toContainText(today);
  await expect(row).toContainText('Processing');
  await expect(row).toContainText('$');
  await row.getByRole('link', { name: String(orderId) }).click();
  await heading(page, `Order ${String(orderId)}`);
  const lines = main(page).getByRole('table');
  await expect(lines.getByRole('link', { name: 'Talon Logo Cap' })).toHaveAttribute('href', /\/product\//);
  await expect(lines.getByRole('row').nth(1)).toContainText('2');
  await expect(main(page).getByText('Free')).toBeVisible();
  await expect(main(page).getByText('Subtotal')).toBeVisible();
  await expectNoAxeViolations(page);

  // the newsletter: subscribe, then unsubscribe
  await gotoHydrated(page, '/profile/newsletter');
  const newsletter = page.getByRole('form', { name: 'Newsletter Subscription' });
  await expect(newsletter).toContainText('You arent subscribed to our newsletter.');
  await newsletter.getByRole('checkbox', { name: 'General Subscription' }).check();
  await tickCaptcha(page, newsletter);
  await newsletter.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('You have been subscribed to the newsletter')).toBeVisible();
  await expect(newsletter).toContainText('You are subscribed to our newsletter.');
  await newsletter.getByRole('checkbox', { name: 'General Subscription' }).uncheck();
  await tickCaptcha(page, newsletter);
  await newsletter.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('You have been unsubscribed from the newsletter')).toBeVisible();
  await expect(newsletter).toContainText('You arent subscribed to our newsletter.');

  // Pro Deal: the refused files are named before upload, a valid one is accepted
  await gotoHydrated(page, '/profile/discount-programs');
  await main(page).getByRole('link', { name: 'Apply for Pro Deal' }).click();
  await heading(page, 'Pro Deal');
  const proDeal = page.getByRole('form', { name: 'Pro Deal application' });
  const documents = proDeal.getByLabel('Supporting Documents');
  await documents.setInputFiles([
    { name: 'badge.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') },
    {
      name: 'paystub.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(600_000)]),
    },
  ]);
  const refused = proDeal.getByRole('alert');
  await expect(refused).toContainText('badge.gif is not an accepted file type');
  await expect(refused).toContainText('paystub.pdf is too large: each file must be under 0.5 MB');
  await documents.setInputFiles([{ name: 'work-id.png', mimeType: 'image/png', buffer: PNG }]);
  await expect(refused).toHaveCount(0);
  await proDeal.getByRole('button', { name: 'Submit Application' }).click();
  await expect(
    page.getByText('Your Pro Deal application has been submitted and is pending verification.'),
  ).toBeVisible();
  await expect(main(page).getByText('Your application is pending verification.')).toBeVisible();

  // LE/MIL: to VeriPass and back
  await gotoHydrated(page, '/profile/discount-programs');
  await main(page).getByRole('link', { name: 'Apply for LE / MIL' }).click();
  await heading(page, 'LE / MIL Verification');
  await main(page).getByRole('button', { name: 'Verify with VeriPass' }).click();
  await expect(page.getByRole('heading', { name: 'VeriPass' })).toBeVisible();
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Your LE/MIL status has been verified')).toBeVisible();
  await expect(page).toHaveURL(/\/profile\/le-mil$/);
  await expect(main(page).getByRole('button', { name: 'Verify with VeriPass' })).toHaveCount(0);
  await gotoHydrated(page, '/profile/discount-programs');
  const military = main(page).getByRole('region', { name: 'LE / MIL' });
  await expect(military).toContainText('Your LE / MIL status is verified.');
  await expect(military.getByRole('link')).toHaveCount(0);
  await expect(main(page).getByRole('region', { name: 'Pro Deal' })).toContainText(
    'Your application is pending verification.',
  );
});

/** A 1×1 PNG (the BFF and the sandbox check the content, not only the name). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
