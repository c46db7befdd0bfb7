import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test, WCAG_22_AA } from './support/frame';
import { gotoHydrated } from './support/hydration';

/** The demo's 38 placed dealers; two more sit at (0, 0) and are left out. */
const PLACED_DEALERS = 38;

/** Dealer markers are buttons named "<dealer>, <City, ST zip>" (the zoom buttons are not). */
function markers(page: Page): Locator {
  return page.getByRole('region', { name: 'Dealer map' }).getByRole('button', { name: /, [A-Z]{2} \d{5}$/ });
}

function dealerList(page: Page): Locator {
  return page.getByRole('main').getByRole('list', { name: 'Dealer' });
}

test('dealer locator: all dealers, a search within the radius, info windows in sync, geocoding failure and the signup link', async ({
  page,
}) => {
  await gotoHydrated(page, '/dealer-locator');
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1, name: 'Dealer Locator' })).toBeVisible();
  await expect(main.getByRole('heading', { name: 'Dealer', exact: true })).toBeVisible();
  const search = main.getByRole('search', { name: 'Find a dealer' });
  await expect(search.getByLabel('Radius')).toHaveValue('50');

  // empty search: every dealer but the two at (0, 0), each with a marker
  const list = dealerList(page);
  await expect(list.getByRole('listitem')).toHaveCount(PLACED_DEALERS);
  await expect(list.getByText('Talonforge Mobile Range Team')).toHaveCount(0);
  await expect(list.getByText('Pending Listing Dealer')).toHaveCount(0);
  await expect(list.getByRole('link', { name: '(602) 555-0100' })).toHaveAttribute('href', 'tel:6025550100');
  await expect(markers(page)).toHaveCount(PLACED_DEALERS);
  await expectNoAxeViolations(page);

  // zip accepts digits only
  const zip = search.getByLabel('Zip code');
  await zip.pressSequentially('85a0-04');
  await expect(zip).toHaveValue('85004');
  await search.getByLabel('Radius').selectOption('150');
  await search.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/\?zip=85004&radius=150$/);

  // Phoenix, then Prescott (~80 mi), then Tucson (~106 mi); nothing else within 150 miles
  const names = list.getByRole('listitem').getByRole('button');
  await expect(names).toHaveText(['Saguaro Sporting Arms', 'Granite Dells Gun Works', 'Old Pueblo Outfitters']);
  const distances = await list.getByText(/ miles$/).allTextContents();
  const miles = distances.map((text) => Number.parseFloat(text));
  expect(miles).toHaveLength(3);
  expect(miles.every((value) => value <= 150)).toBe(true);
  expect([...miles].sort((a, b) => a - b)).toEqual(miles);
  await expect(markers(page)).toHaveCount(3);

  // a list entry opens its info window on the map
  const map = page.getByRole('region', { name: 'Dealer map' });
  await list.getByRole('button', { name: 'Granite Dells Gun Works' }).click();
  await expect(list.getByRole('button', { name: 'Granite Dells Gun Works' })).toHaveAttribute('aria-pressed', 'true');
  await expect(map.getByText('174 Main Street')).toBeVisible();
  await expect(map.getByRole('link', { name: '(928) 555-0102' })).toHaveAttribute('href', 'tel:9285550102');

  // clicking the map closes it
  const box = await map.boundingBox();
  if (!box) throw new Error('the map has no box');
  await page.mouse.click(box.x + 20, box.y + box.height - 40);
  await expect(map.getByText('174 Main Street')).toBeHidden();
  await expect(list.getByRole('button', { name: 'Granite Dells Gun Works' })).toHaveAttribute('aria-pressed', 'false');

  // a marker, from the keyboard, opens its info window and selects the list entry
  const tucson = map.getByRole('button', { name: /^Old Pueblo Outfitters, / });
  await tucson.focus();
  await page.keyboard.press('Enter');
  await expect(map.getByText('137 Main Street')).toBeVisible();
  await expect(list.getByRole('button', { name: 'Old Pueblo Outfitters' })).toHaveAttribute('aria-pressed', 'true');
  await expectNoAxeViolations(page);

  // an unknown zip
  await zip.fill('00000');
  await search.getByRole('button', { name: 'Search' }).click();
  await expect(main.getByRole('alert').filter({ hasText: 'Geocoding request failed' })).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(0);

  // the dealer-signup text links to the registration
  await expect(main.getByText('Are you a licensed dealer?')).toBeVisible();
  await main.getByRole('link', { name: 'Become a Dealer' }).click();
  await expect(page).toHaveURL(/\/dealer-registration$/);
  await expect(main.getByRole('heading', { level: 1, name: 'Become a Talonforge Dealer' })).toBeVisible();
});

test('dealer registration: conditional fields, a refused .png, the captcha message and a successful registration', async ({
  page,
}) => {
  await gotoHydrated(page, '/dealer-registration');
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1, name: 'Become a Talonforge Dealer' })).toBeVisible();
  await expect(main.getByText('Thank you for your interest in carrying Talonforge Arms.')).toBeVisible();
  const form = main.getByRole('form', { name: 'Become a Talonforge Dealer' });
  await expectNoAxeViolations(page);

  // nothing filled in
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(form.getByText('Please complete the reCAPTCHA')).toBeVisible();
  await expect(form.getByRole('textbox', { name: 'Company', exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByText('Required', { exact: true })).toHaveCount(10);

  // the locator address: only when listed without 'use this address'
  const locatorAddress = form.getByRole('group', { name: 'Dealer locator address' });
  await expect(locatorAddress).toBeHidden();
  await form.getByLabel('Use this address in the dealer locator').uncheck();
  await expect(locatorAddress.getByLabel('Locator City')).toBeVisible();
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(locatorAddress.getByText('Required', { exact: true })).toHaveCount(4);
  await form.getByLabel('Appear in the dealer locator').uncheck();
  await expect(locatorAddress).toBeHidden();
  await expect(form.getByLabel('Use this address in the dealer locator')).toBeHidden();
  await form.getByLabel('Appear in the dealer locator').check();
  await form.getByLabel('Use this address in the dealer locator').check();
  await expect(locatorAddress).toBeHidden();

  // FFL/SOT: the number and document are required; a .png is refused before upload, by name
  await form.getByLabel('I have an FFL / SOT').check();
  await expect(form.getByRole('textbox', { name: 'FFL Number', exact: true })).toBeVisible();
  await form
    .getByLabel('FFL Document')
    .setInputFiles({ name: 'licence.png', mimeType: 'image/png', buffer: Buffer.from('png') });
  await expect(
    form.getByText('licence.png is not an accepted file type: only pdf, tif and tiff files are accepted'),
  ).toBeVisible();
  await form.getByLabel('FFL Document').setInputFiles({
    name: 'licence.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
  });
  await expect(form.getByText(/licence\.png is not an accepted file type/)).toBeHidden();

  await form.getByRole('textbox', { name: 'Company', exact: true }).fill('Ridge Outfitters');
  await form.getByRole('textbox', { name: 'Website', exact: true }).fill('ridge');
  await form.getByRole('textbox', { name: 'First Name', exact: true }).fill('Dana');
  await form.getByRole('textbox', { name: 'Last Name', exact: true }).fill('Reyes');
  await form.getByRole('textbox', { name: 'Phone', exact: true }).pressSequentially('2085550100');
  await expect(form.getByRole('textbox', { name: 'Phone', exact: true })).toHaveValue('(208) 555-0100');
  await form.getByRole('textbox', { name: 'Email', exact: true }).fill('owner@ridge.example');
  await form.getByRole('textbox', { name: 'Street Address', exact: true }).fill('1 Main St');
  await form.getByRole('textbox', { name: 'City', exact: true }).fill('Boise');
  await form.getByRole('combobox', { name: 'State', exact: true }).selectOption({ label: 'Idaho' });
  await form.getByRole('textbox', { name: 'Postal Code', exact: true }).fill('83702');
  await form.getByRole('textbox', { name: 'FFL Number', exact: true }).fill('1-23-456-78-9A-12345');
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(form.getByText('Website must be a valid URL')).toBeVisible();
  await form.getByRole('textbox', { name: 'Website', exact: true }).fill('https://ridge.example');

  await form.getByRole('group', { name: 'reCAPTCHA' }).getByRole('checkbox', { name: "I'm not a robot" }).check();
  await expect(form.getByText('Please complete the reCAPTCHA')).toBeHidden();
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(
    page.getByText('Thank you for registering. Our dealer team will review your application and contact you.'),
  ).toBeVisible();
  // the form is cleared
  await expect(form.getByRole('textbox', { name: 'Company', exact: true })).toHaveValue('');
  await expect(form.getByLabel('I have an FFL / SOT')).not.toBeChecked();
  await expect(form.getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();
});

test('3D builder: the build hosted on a 16:9 canvas under the window height, the bridge registered, guest sessions stored and refused', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await gotoHydrated(page, '/3dbuilder');
  const canvas = page.getByRole('application', { name: '3D Builder' }).locator('canvas');
  await expect(canvas).toBeVisible();
  await expect(canvas).toHaveAttribute('data-state', 'ready');

  const expectSixteenByNine = async (viewportHeight: number) => {
    await expect
      .poll(async () => {
        const box = await canvas.boundingBox();
        if (!box) return 'no box';
        const ratio = box.width / box.height;
        return Math.abs(ratio - 16 / 9) < 0.01 && box.height <= viewportHeight - 140 + 1
          ? 'ok'
          : `${String(box.width)}x${String(box.height)}`;
      })
      .toBe('ok');
  };
  await expectSixteenByNine(800);
  // 800 - 140 = 660 high: the height limits it
  expect((await canvas.boundingBox())?.height).toBeCloseTo(660, -1);

  await page.setViewportSize({ width: 1280, height: 500 });
  await expectSixteenByNine(500);
  expect((await canvas.boundingBox())?.height).toBeCloseTo(360, -1);

  // what the page sent the build (the stand-in build keeps it on its canvas)
  const received = async () => JSON.parse((await canvas.getAttribute('data-received')) ?? '[]') as unknown[];
  // the game speaks to the page as the hosted build does: window messages from the page's origin
  const fromGame = (message: unknown) =>
    page.evaluate((data) => {
      window.postMessage(data, window.location.origin);
    }, message);

  await expect.poll(received).toContainEqual({ type: 'registeredBridge' });
  expect(
    (await received()).filter((message) => JSON.stringify(message) === '{"type":"registeredBridge"}'),
  ).toHaveLength(1);
  await expect.poll(received).toContainEqual({ type: 'guestSessionStored', value: 'gid_stand-in-build' });

  await fromGame({ type: 'storeGuestSession', value: 'gid_sandbox-builder' });
  await expect.poll(received).toContainEqual({ type: 'guestSessionStored', value: 'gid_sandbox-builder' });
  await fromGame({ type: 'checkForGuestSession' });
  await expect.poll(received).toContainEqual({ type: 'guestSession', value: 'gid_sandbox-builder' });

  await fromGame({ type: 'storeGuestSession', value: 'sandbox-builder' });
  await expect.poll(received).toContainEqual({ type: 'error', value: 'invalid guest session id' });

  await fromGame({ type: 'checkForBearerToken' });
  await expect.poll(received).toContainEqual({ type: 'bearerToken', value: '' });
  const results = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze();
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);

  // a deep link navigates inside the store
  await fromGame({ type: 'deeplink', value: '/dealer-locator' });
  await expect(page).toHaveURL(/\/dealer-locator$/);
});
