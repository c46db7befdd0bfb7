import { expect, expectNoAxeViolations, openEachMenu, test, useSearchWithKeyboard } from './support/frame';
import { gotoHydrated } from './support/hydration';

test('an unknown path shows the not-found page inside the layout; menus, keyboard search, no axe violations', async ({
  page,
}) => {
  // a crawler sees a 404 (no soft 404), a shopper the app's not-found page
  const response = await gotoHydrated(page, '/this/route/does-not-exist');
  expect(response?.status()).toBe(404);

  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(main).toContainText('No route matches URL "/this/route/does-not-exist"');
  await expect(page.getByRole('banner')).toBeVisible();

  await openEachMenu(page);
  await useSearchWithKeyboard(page);
  await expectNoAxeViolations(page);
});
