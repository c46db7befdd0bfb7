import { expect, test } from '@playwright/test';

test.describe('home page', () => {
  test('shows the header navigation, the carousel and the footer', async ({ page }) => {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/');

    const banner = page.getByRole('banner');
    const mainNav = banner.getByRole('navigation', { name: 'Main' });
    await expect(mainNav.getByRole('button', { name: 'Rifles', exact: true })).toBeVisible();
    await expect(mainNav.getByRole('button', { name: 'Pistols', exact: true })).toBeVisible();

    await expect(
      page.getByRole('main').getByRole('heading', { name: 'Built for the Long Range', exact: true }),
    ).toBeVisible();

    const footer = page.getByRole('contentinfo');
    await expect(footer.getByRole('button', { name: 'Back To Top' })).toBeVisible();
    await expect(footer.getByRole('link', { name: 'Dealer Locator', exact: true })).toBeVisible();

    expect(pageErrors).toEqual([]);
  });

  test('opens a main menu', async ({ page }) => {
    await page.goto('/');

    const rifles = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Rifles', exact: true });
    await rifles.click();
    await expect(rifles).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('Escape');
    await expect(rifles).toHaveAttribute('aria-expanded', 'false');
  });
});
