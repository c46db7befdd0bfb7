import {
  expect,
  expectNoAxeViolations,
  openEachMenu,
  openMobileMenu,
  test,
  useSearchWithKeyboard,
} from './support/frame';
import { gotoHydrated, reloadHydrated } from './support/hydration';

test.describe('home page', () => {
  test('header, carousel, ribbon and footer; menus, keyboard search, no axe violations', async ({ page }) => {
    await gotoHydrated(page, '/');

    const banner = page.getByRole('banner');
    await expect(banner.getByRole('link', { name: 'Talonforge Arms' })).toHaveAttribute('href', '/');
    await expect(banner.getByRole('button', { name: /^Cart, \d+ items?$/ })).toBeVisible();
    await expect(banner.getByRole('link', { name: 'Dealer locator' })).toHaveAttribute('href', '/dealer-locator');
    await expect(banner.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');

    const main = page.getByRole('main');
    const carousel = main.getByRole('region', { name: 'Featured' });
    await expect(carousel.getByRole('heading', { name: 'Built for the Long Range', exact: true })).toBeVisible();
    await carousel.getByRole('button', { name: 'Next slide' }).click();
    await expect(carousel.getByRole('heading', { name: 'Carry with Confidence', exact: true })).toBeVisible();
    await expect(
      main.getByRole('region', { name: 'Shop by category' }).getByRole('link', { name: 'Rifles' }),
    ).toBeVisible();

    const footer = page.getByRole('contentinfo');
    await expect(footer.getByRole('button', { name: 'Back To Top' })).toBeVisible();
    await expect(footer.getByRole('heading', { name: 'STAY UPDATED' })).toBeVisible();
    await expect(footer.getByText("Don't miss out on product launches, events, and free SWAG.")).toBeVisible();
    await expect(footer.getByRole('link', { name: 'Download Product Guide' })).toBeVisible();
    const columns = footer.getByRole('navigation', { name: 'Footer' }).getByRole('list');
    await expect(columns).toHaveCount(3);
    // 13 links: 5, 4, 4
    await expect(columns.nth(0).getByRole('link')).toHaveCount(5);
    await expect(columns.nth(1).getByRole('link')).toHaveCount(4);
    await expect(columns.nth(2).getByRole('link')).toHaveCount(4);
    await expect(footer.getByRole('group', { name: 'reCAPTCHA' })).toBeVisible();

    await openEachMenu(page);
    await useSearchWithKeyboard(page);
    await expectNoAxeViolations(page);
  });

  test('an open menu and the open search overlay have no axe violations', async ({ page }) => {
    await gotoHydrated(page, '/');
    const rifles = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Rifles', exact: true });
    await rifles.click();
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Long Range/ }),
    ).toBeVisible();
    await expectNoAxeViolations(page);
    await page.keyboard.press('Escape');

    await page.getByRole('banner').getByRole('button', { name: 'Search' }).click();
    await expect(page.getByRole('combobox', { name: 'Search products' })).toBeFocused();
    await expectNoAxeViolations(page);
  });

  test('searching with the keyboard lands on /search/{query}, encoded and lower-cased', async ({ page }) => {
    await gotoHydrated(page, '/');
    const toggle = page.getByRole('banner').getByRole('button', { name: 'Search' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('combobox', { name: 'Search products' })).toBeFocused();
    await page.keyboard.type('Summit LR');
    await page.keyboard.press('Enter');

    await expect(page).toHaveURL(/\/search\/summit%20lr$/);
    await expect(
      page.getByRole('main').getByRole('heading', { level: 1, name: 'Results for "summit lr"' }),
    ).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Search products' })).toBeHidden();
  });

  test.describe('on a phone', () => {
    test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

    test('hamburger menu with independent sections, keyboard search, no axe violations', async ({ page }) => {
      await gotoHydrated(page, '/');
      const banner = page.getByRole('banner');
      await expect(banner.getByRole('navigation', { name: 'Main' })).toBeHidden();
      await expect(banner.getByRole('button', { name: 'Search' })).toBeVisible();
      await expect(banner.getByRole('button', { name: /^Cart/ })).toBeVisible();
      await expect(page.getByRole('main').getByRole('heading', { name: 'Built for the Long Range' })).toBeVisible();

      await openMobileMenu(page);
      await useSearchWithKeyboard(page);
      await expectNoAxeViolations(page);
    });
  });
});

test.describe('first visit', () => {
  test.use({ consentDecided: false });

  test('asks for analytics consent in an accessible modal; the decision is remembered', async ({ page }) => {
    await gotoHydrated(page, '/');
    const dialog = page.getByRole('dialog', { name: 'Your privacy' });
    await expect(dialog).toBeVisible();
    await expectNoAxeViolations(page);

    await dialog.getByRole('button', { name: 'Accept' }).click();
    await expect(dialog).toBeHidden();
    expect(await page.evaluate(() => localStorage.getItem('analyticsConsent'))).toBe('true');
    expect(Number(await page.evaluate(() => localStorage.getItem('analyticsConsentTimestamp')))).toBeGreaterThan(0);

    await reloadHydrated(page);
    await expect(page.getByRole('main').getByRole('heading', { name: 'Built for the Long Range' })).toBeVisible();
    await expect(page.getByRole('dialog', { name: 'Your privacy' })).toBeHidden();
  });
});
