import { expect, expectNoAxeViolations, openEachMenu, test, useSearchWithKeyboard } from './support/frame';
import { gotoHydrated } from './support/hydration';

/** Every content page of the storefront's frame issue, with the heading its demo content gives it. */
const PAGES = [
  { path: '/limited-edition', heading: 'Limited Edition' },
  { path: '/about-us', heading: 'Forged by Shooters' },
  { path: '/contact-us', heading: 'Contact Us' },
  { path: '/media-library', heading: 'Media Library' },
  { path: '/support', heading: 'How can we help?' },
  { path: '/warranty', heading: 'Lifetime Warranty' },
  { path: '/faq', heading: 'Frequently Asked Questions' },
  { path: '/reviews', heading: 'Customer Reviews' },
  { path: '/resources', heading: 'LE / MIL Resources' },
  { path: '/patents', heading: 'Patents' },
  { path: '/copy/terms', heading: 'Terms of Service' },
  { path: '/copy/privacy', heading: 'Privacy Policy' },
  { path: '/copy/cookies', heading: 'Terms of Service' },
  { path: '/terms-of-service', heading: 'Terms of Service' },
  { path: '/login', heading: 'Welcome Back' },
  { path: '/register', heading: 'Create an Account' },
  { path: '/forgot-password', heading: 'Forgot Your Password?' },
  { path: '/auth/reset-password?token=e2e', heading: 'Reset Password' },
] as const;

for (const { path, heading } of PAGES) {
  test(`${path}: content, menus, keyboard search and no axe violations`, async ({ page }) => {
    await gotoHydrated(page, path);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1, name: heading, exact: true })).toBeVisible();
    await expect(page).toHaveTitle(/\S/);

    await openEachMenu(page);
    await useSearchWithKeyboard(page);
    // the footer's newsletter form (loaded after the page) is part of the scan
    await expect(page.getByRole('contentinfo').getByRole('form', { name: 'STAY UPDATED' })).toBeVisible();
    await expectNoAxeViolations(page);
  });
}

test('about us: the careers section is reachable by its URL hash, and Contact Us goes to /contact-us', async ({
  page,
}) => {
  await gotoHydrated(page, '/about-us#careers');
  const careers = page.getByRole('region', { name: "We're Hiring" });
  await expect(careers).toBeInViewport();
  await expect(careers.getByRole('listitem').first()).toBeVisible();

  await page.getByRole('main').getByRole('link', { name: 'Contact Us', exact: true }).click();
  await expect(page).toHaveURL(/\/contact-us$/);
  await expect(page.getByRole('main').getByRole('heading', { level: 1, name: 'Contact Us' })).toBeVisible();
});

test('FAQ: several answers open at once, Close All collapses them', async ({ page }) => {
  await gotoHydrated(page, '/faq');
  const main = page.getByRole('main');
  const first = main.getByRole('button', { name: 'How do FFL transfers work?' });
  const second = main.getByRole('button', { name: "Which items can't ship to my state?" });
  await first.click();
  await second.click();
  await expect(first).toHaveAttribute('aria-expanded', 'true');
  await expect(second).toHaveAttribute('aria-expanded', 'true');
  await expectNoAxeViolations(page);

  await main.getByRole('button', { name: 'Close All' }).click();
  await expect(first).toHaveAttribute('aria-expanded', 'false');
  await expect(second).toHaveAttribute('aria-expanded', 'false');
});

test('media library: downloads grouped by category, and the image request form', async ({ page }) => {
  await gotoHydrated(page, '/media-library');
  const main = page.getByRole('main');
  await expect(main.getByRole('link', { name: 'Download the 2026 Catalog' })).toBeVisible();
  const manuals = main.getByRole('list', { name: "Owner's Manuals" });
  await expect(manuals.getByRole('link', { name: /^Download Summit LR Owner's Manual/ })).toBeVisible();
  const form = main.getByRole('form', { name: 'Product Image Request' });
  await expect(form.getByLabel('First Name')).toHaveAttribute('placeholder', 'Required');
  await form.getByRole('button', { name: 'Submit Request' }).click();
  await expect(form.getByText('First Name is required')).toBeVisible();
  await expect(form.getByText('Captcha is required')).toBeVisible();
});

test('customer reviews: the third-party widget renders', async ({ page }) => {
  await gotoHydrated(page, '/reviews');
  const main = page.getByRole('main');
  await expect(main.getByRole('region', { name: 'Customer reviews' })).toBeVisible();
  await main.getByRole('button', { name: 'Write a review' }).click();
  // the widget's fields about the user are removed; its own fields stay
  await expect(main.getByLabel('Review title')).toBeVisible();
  await expect(main.getByLabel('Your name')).toHaveCount(0);
  await expect(main.getByLabel('Your e-mail')).toHaveCount(0);
});
