import { expect, test } from '@playwright/test';

test('an unknown path shows the not-found page inside the layout', async ({ page }) => {
  await page.goto('/this/route/does-not-exist');

  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(main).toContainText('No route matches URL "/this/route/does-not-exist"');
  await expect(page.getByRole('banner')).toBeVisible();
});
