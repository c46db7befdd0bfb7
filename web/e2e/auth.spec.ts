import { expect, test } from './support/frame';
import { gotoHydrated } from './support/hydration';

test('signing in with the captcha from the sandbox goes home, and the account icon then leads to the account', async ({
  page,
}) => {
  await gotoHydrated(page, '/login');
  const form = page.getByRole('form', { name: 'Sign in' });
  await form.getByLabel('Email').fill('shopper@talonforge.example');
  await form.getByLabel('Password', { exact: true }).fill('Password123!');
  await form.getByRole('group', { name: 'reCAPTCHA' }).getByRole('checkbox', { name: "I'm not a robot" }).check();
  await expect(form.getByText('You are verified')).toBeVisible();
  await form.getByRole('button', { name: 'Sign In' }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('banner').getByRole('link', { name: 'Account' })).toHaveAttribute('href', '/profile');
});
