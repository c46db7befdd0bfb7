import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import '../../../app/routes/product';
import type { Cart } from '../../../api/types';
import { cartItem, emptyCart, signedInSession } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { server } from '../../../test/server';
import '../../promotions/promotion-modal';
import { MENU_HIDE_AFTER_NAVIGATION_MS } from './main-nav';
import { defined } from '../../../test/defined';

const cartWith = (...quantities: number[]): Cart => ({
  ...emptyCart,
  items: quantities.map((quantity, index) =>
    cartItem({ id: index + 1, productId: `SKU-${String(index)}`, productName: `Item ${String(index)}`, quantity }),
  ),
});

async function renderHeader() {
  const user = userEvent.setup();
  const rendered = renderRoute('/');
  const banner = await screen.findByRole('banner');
  await within(banner).findByRole('button', { name: 'Rifles' });
  return { ...rendered, user, banner };
}

describe('site header', () => {
  it('shows the cart item count (sum of the quantities) from the one cart cache entry', async () => {
    let cartCalls = 0;
    server.use(
      http.get('/api/cart', () => {
        cartCalls += 1;
        return HttpResponse.json(cartWith(2, 1));
      }),
    );
    const { banner, queryClient } = await renderHeader();

    const cart = await within(banner).findByRole('button', { name: 'Cart, 3 items' });
    expect(within(cart).getByText('3')).toHaveAttribute('aria-hidden', 'true');
    expect(queryClient.getQueryCache().findAll({ queryKey: ['cart'] })).toHaveLength(1);
    expect(cartCalls).toBe(1);
  });

  it('sends the account icon to the login page for visitors and to the account area when signed in', async () => {
    const first = await renderHeader();
    expect(within(first.banner).getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    first.unmount();

    server.use(http.get('/api/session', () => HttpResponse.json(signedInSession)));
    const { banner } = await renderHeader();
    expect(await within(banner).findByRole('link', { name: 'Account' })).toHaveAttribute('href', '/profile');
  });

  it('opens a menu on hover and closes it when the pointer leaves', async () => {
    const { banner, user } = await renderHeader();
    const nav = within(banner).getByRole('navigation', { name: 'Main' });
    const rifles = within(nav).getByRole('button', { name: 'Rifles' });
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 10_000);

    await user.hover(rifles);
    expect(rifles).toHaveAttribute('aria-expanded', 'true');
    expect(within(nav).getByRole('link', { name: 'Rifles Model One' })).toBeVisible();

    await user.unhover(rifles);
    expect(rifles).toHaveAttribute('aria-expanded', 'false');
  });

  it('reaches the sub-menus with the keyboard', async () => {
    const { banner, user } = await renderHeader();
    const nav = within(banner).getByRole('navigation', { name: 'Main' });
    const pistols = within(nav).getByRole('button', { name: 'Pistols' });
    pistols.focus();

    await user.keyboard('{Enter}');
    expect(pistols).toHaveAttribute('aria-expanded', 'true');
    await user.tab();
    expect(within(nav).getByRole('link', { name: 'Shop all Pistols' })).toHaveFocus();
    await user.tab();
    expect(within(nav).getByRole('link', { name: 'Pistols Model One' })).toHaveFocus();

    await user.keyboard('{Escape}');
    expect(pistols).toHaveAttribute('aria-expanded', 'false');
    expect(pistols).toHaveFocus();
  });

  it('hides the menus briefly after a page change, even under the pointer', async () => {
    const { banner, user } = await renderHeader();
    const nav = within(banner).getByRole('navigation', { name: 'Main' });
    const rifles = within(nav).getByRole('button', { name: 'Rifles' });
    await user.click(rifles);
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now);

    await user.click(within(nav).getByRole('link', { name: 'Rifles Model One' }));
    await screen.findByRole('heading', { level: 1, name: 'Product' });
    expect(rifles).toHaveAttribute('aria-expanded', 'false');

    // the pointer is still over the menu: hovering does not bring it back yet
    fireEvent.pointerLeave(defined(rifles.parentElement), { pointerType: 'mouse' });
    fireEvent.pointerEnter(defined(rifles.parentElement), { pointerType: 'mouse' });
    expect(rifles).toHaveAttribute('aria-expanded', 'false');

    clock.mockReturnValue(now + MENU_HIDE_AFTER_NAVIGATION_MS + 1);
    fireEvent.pointerEnter(defined(rifles.parentElement), { pointerType: 'mouse' });
    expect(rifles).toHaveAttribute('aria-expanded', 'true');
  });

  it('mobile menu: the hamburger reveals accordion sections that expand independently, plus dealer locator and account', async () => {
    const { banner, user } = await renderHeader();
    const hamburger = within(banner).getByRole('button', { name: 'Menu' });
    expect(hamburger).toHaveAttribute('aria-expanded', 'false');

    await user.click(hamburger);
    expect(hamburger).toHaveAttribute('aria-expanded', 'true');
    const mobile = within(banner).getByRole('navigation', { name: 'Mobile' });
    const rifles = within(mobile).getByRole('button', { name: 'Rifles' });
    const support = within(mobile).getByRole('button', { name: 'Support' });

    await user.click(rifles);
    await user.click(support);
    expect(rifles).toHaveAttribute('aria-expanded', 'true');
    expect(support).toHaveAttribute('aria-expanded', 'true');
    expect(within(mobile).getByRole('link', { name: 'Rifles Model One' })).toBeVisible();
    expect(within(mobile).getByRole('link', { name: 'Support Model One' })).toBeVisible();

    await user.click(rifles);
    expect(rifles).toHaveAttribute('aria-expanded', 'false');
    expect(support).toHaveAttribute('aria-expanded', 'true');

    expect(within(mobile).getByRole('link', { name: 'Dealer Locator' })).toHaveAttribute('href', '/dealer-locator');
    expect(within(mobile).getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');

    await user.keyboard('{Escape}');
    expect(hamburger).toHaveAttribute('aria-expanded', 'false');
    expect(hamburger).toHaveFocus();
  });

  it('mobile menu: nothing of the closed panel is rendered until it is first opened, and a section links only while expanded', async () => {
    const { banner, user } = await renderHeader();
    const hamburger = within(banner).getByRole('button', { name: 'Menu' });
    const panel = defined(document.getElementById(defined(hamburger.getAttribute('aria-controls'))));
    expect(panel).toBeEmptyDOMElement();

    await user.click(hamburger);
    const mobile = within(banner).getByRole('navigation', { name: 'Mobile' });
    const rifles = within(mobile).getByRole('button', { name: 'Rifles' });
    const riflesPanel = defined(document.getElementById(defined(rifles.getAttribute('aria-controls'))));
    expect(riflesPanel).toBeEmptyDOMElement();
    await user.click(rifles);
    expect(within(riflesPanel).getByRole('link', { name: 'Rifles Model One' })).toBeVisible();

    // closed again, the panel keeps its contents (reopening costs nothing), hidden
    await user.click(hamburger);
    expect(panel).not.toBeVisible();
    expect(within(panel).getByRole('button', { name: 'Rifles', hidden: true })).toBeInTheDocument();
  });
});

describe('promotion modal', () => {
  it("opens once for a promotion applied to the cart, with 'Shop Now' to /collection/{title}", async () => {
    server.use(
      http.get('/api/cart', () =>
        HttpResponse.json({
          ...cartWith(1),
          appliedDiscounts: [
            {
              promoCode: 'BUNDLE20',
              discountPercentage: 20,
              discountAmount: 2,
              appliedToCartItemIds: [1],
              promotionalPageInfo: {
                data: [
                  {
                    title: 'Bundle & Save',
                    subtitle: '20% off your whole order',
                    promoImage: { url: 'https://media.example.test/promo.svg', alternativeText: 'Bundle & Save' },
                    group1: null,
                    group2: null,
                  },
                ],
              },
            },
          ],
        } satisfies Cart),
      ),
    );
    const user = userEvent.setup();
    const { unmount } = renderRoute('/');

    const dialog = await screen.findByRole('dialog', { name: 'Bundle & Save' });
    expect(within(dialog).getByText('20% off your whole order')).toBeInTheDocument();
    expect(within(dialog).getByRole('img', { name: 'Bundle & Save' })).toBeInTheDocument();
    const shopNow = within(dialog).getByRole('link', { name: 'Shop Now' });
    expect(shopNow).toHaveAttribute('href', '/collection/bundle%20%26%20save');

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    unmount();

    // the same promotion is not shown again in this browser session
    renderRoute('/');
    await screen.findByRole('heading', { name: 'Built for the Long Range' });
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('page changes', () => {
  it('close the cart drawer and scroll to the top', async () => {
    const { cartDrawerStore } = await import('../../cart/queries');
    const { router } = await renderHeader();
    act(() => {
      cartDrawerStore.set(true);
    });
    expect(document.body).toHaveClass('cart-open');
    const scrollTo = vi.spyOn(window, 'scrollTo');

    act(() => {
      router.navigate('/product/anything');
    });

    await waitFor(() => {
      expect(cartDrawerStore.get()).toBe(false);
    });
    expect(document.body).not.toHaveClass('cart-open');
    await waitFor(() => {
      expect(scrollTo).toHaveBeenCalledWith(0, 0);
    });
  });
});
