import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { cartItem } from '../../../test/fixtures';
import { createFakeCart } from '../../../test/fixtures/cart';
import { renderRoute } from '../../../test/render';
import { problem, server } from '../../../test/server';
import { notificationStore } from '../../../components/notifications/store';
import { inventoryWarningText } from '../lines';
import './cart-drawer';

const mat = cartItem({
  id: 5,
  productId: 'TF-MAT',
  productName: 'Range Mat',
  quantity: 1,
  price: 49.99,
  productPrice: 49.99,
  productUrl: '/product/range%20mat',
});
const rifle = cartItem({
  id: 6,
  productId: 'TF-SLR-65CM-24-BLK',
  productName: 'Summit LR',
  options: [
    { label: 'Caliber', value: '6.5 Creedmoor' },
    { label: 'Color', value: 'Black' },
  ],
  quantity: 1,
  price: 2499,
  productPrice: 2249.1,
});

async function openDrawer(options: Parameters<typeof createFakeCart>[0] = {}) {
  const fake = createFakeCart(options);
  server.use(...fake.handlers);
  const user = userEvent.setup();
  const rendered = renderRoute('/');
  const banner = await screen.findByRole('banner');
  const count = options.items?.reduce((sum, item) => sum + item.quantity, 0) ?? 0;
  const button = await within(banner).findByRole('button', {
    name: `Cart, ${String(count)} ${count === 1 ? 'item' : 'items'}`,
  });
  await user.click(button);
  const drawer = await screen.findByRole('dialog', { name: 'Cart' });
  return { ...rendered, fake, user, banner, button, drawer };
}

describe('cart drawer', () => {
  it('opens from the header button as a modal dialog named Cart: lines, options, prices, totals; Escape closes it and focus returns', async () => {
    const { drawer, button } = await openDrawer({ items: [mat, rifle] });

    expect(document.body).toHaveClass('cart-open');
    expect(within(drawer).getByRole('link', { name: 'Range Mat' })).toHaveAttribute('href', '/product/range%20mat');
    const rifleLine = within(drawer).getByRole('heading', { name: 'Summit LR' }).closest('li');
    expect(rifleLine).not.toBeNull();
    const line = within(rifleLine as HTMLElement);
    expect(line.getByText('Caliber')).toBeInTheDocument();
    expect(line.getByText('6.5 Creedmoor')).toBeInTheDocument();
    // discounted: the original struck through, the charged unit price beside it
    expect(line.getByText('$2,499.00').closest('s')).not.toBeNull();
    expect(line.getByText('$2,249.10')).toBeInTheDocument();
    expect(
      line.getByRole('spinbutton', { name: 'Quantity of Summit LR (Caliber: 6.5 Creedmoor, Color: Black)' }),
    ).toHaveValue(1);

    const totals = within(drawer).getByText('Subtotal').closest('dl');
    expect(totals).not.toBeNull();
    expect(totals).toHaveTextContent('Subtotal$2,299.09');
    expect(totals).toHaveTextContent('Discount$0.00');
    expect(totals).toHaveTextContent('Tax$0.00');
    expect(totals).toHaveTextContent('Total$2,299.09');
    expect(within(drawer).getByRole('link', { name: 'Checkout' })).toHaveAttribute('href', '/checkout');

    // jsdom has no Escape handling for dialogs: the browser's answer to Escape is a `cancel` event
    fireEvent(drawer, new Event('cancel', { cancelable: true }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Cart' })).not.toBeInTheDocument();
    });
    expect(document.body).not.toHaveClass('cart-open');
    expect(button).toHaveFocus();
  });

  it('shows the empty state with a way back to shopping', async () => {
    const { drawer } = await openDrawer();
    expect(within(drawer).getByText('Your cart is empty.')).toBeInTheDocument();
    expect(within(drawer).getByRole('link', { name: 'Continue shopping' })).toHaveAttribute('href', '/');
  });

  it('changes a quantity at once, before the server answers, and the badge follows', async () => {
    const { drawer, user, banner, fake } = await openDrawer({ items: [mat] });
    fake.hold();

    await user.click(within(drawer).getByRole('button', { name: 'Increase quantity of Range Mat' }));
    expect(within(drawer).getByRole('spinbutton', { name: 'Quantity of Range Mat' })).toHaveValue(2);
    expect(within(banner).getByRole('button', { name: 'Cart, 2 items' })).toBeInTheDocument();
    expect(fake.cart().items[0]?.quantity).toBe(1); // not confirmed yet
    fake.release();

    await waitFor(() => {
      expect(fake.cart().items[0]?.quantity).toBe(2);
    });
    expect(fake.requests).toEqual([{ method: 'PUT', path: '/api/cart/items/5', body: { quantity: 2 } }]);
  });

  it("announces a quantity change: 'You updated {product and options} in your shopping cart'", async () => {
    const { drawer, user } = await openDrawer({ items: [rifle] });
    await user.click(within(drawer).getByRole('button', { name: /^Increase quantity of Summit LR/ }));
    await waitFor(() => {
      expect(notificationStore.get()).toEqual({
        type: 'success',
        message: 'You updated Summit LR (Caliber: 6.5 Creedmoor, Color: Black) in your shopping cart',
      });
    });
    expect(within(drawer).getByRole('status')).toHaveTextContent(
      'You updated Summit LR (Caliber: 6.5 Creedmoor, Color: Black) in your shopping cart',
    );
  });

  it('toasts the inventory warnings of a cart read once, however often the cart is read again', async () => {
    const fake = createFakeCart({ items: [{ ...mat, quantity: 3 }] });
    let reads = 0;
    server.use(
      http.get('/api/cart', () => {
        reads += 1;
        return HttpResponse.json(fake.cart());
      }),
      ...fake.handlers,
    );
    const { queryClient } = renderRoute('/');
    const warning = 'InsufficientStock: (Range Mat) - Only 1 in stock; 3 requested.';
    await waitFor(() => {
      expect(notificationStore.get()).toEqual({ type: 'warning', message: warning });
    });
    notificationStore.set(null);
    await queryClient.invalidateQueries();
    await queryClient.invalidateQueries();
    await waitFor(() => {
      expect(reads).toBeGreaterThanOrEqual(3);
    });
    expect(notificationStore.get()).toBeNull();
  });

  it('serialises rapid clicks: each update is sent after the previous answer, the last one wins, one read afterwards', async () => {
    const { drawer, banner, fake } = await openDrawer({ items: [mat] });
    fake.hold();
    let reads = 0;
    server.use(
      http.get('/api/cart', () => {
        reads += 1;
        return HttpResponse.json(fake.cart());
      }),
    );
    const increase = within(drawer).getByRole('button', { name: 'Increase quantity of Range Mat' });

    // three clicks in a row, all before the first answer
    fireEvent.click(increase);
    fireEvent.click(increase);
    fireEvent.click(increase);
    await waitFor(() => {
      expect(within(drawer).getByRole('spinbutton', { name: 'Quantity of Range Mat' })).toHaveValue(4);
    });
    expect(within(banner).getByRole('button', { name: 'Cart, 4 items' })).toBeInTheDocument();
    // one write at a time: the others wait for its answer
    await waitFor(() => {
      expect(fake.requests).toHaveLength(1);
    });
    expect(reads).toBe(0);
    fake.release();

    await waitFor(() => {
      expect(reads).toBe(1);
    });
    expect(fake.requests.map((request) => request.body)).toEqual([{ quantity: 2 }, { quantity: 3 }, { quantity: 4 }]);
    expect(fake.stats.maxConcurrentWrites).toBe(1);
    expect(fake.cart().items[0]?.quantity).toBe(4);
    expect(within(drawer).getByRole('spinbutton', { name: 'Quantity of Range Mat' })).toHaveValue(4);
  });

  it('reverts the displayed quantity when the update fails, with the error toast', async () => {
    const { drawer, user, banner } = await openDrawer({ items: [mat] });
    let fail: () => void = () => undefined;
    const failure = new Promise<void>((resolve) => {
      fail = resolve;
    });
    server.use(
      http.put('/api/cart/items/:id', async () => {
        await failure;
        return problem(503, {
          title: 'Service Unavailable',
          detail: 'The commerce service is overloaded',
          code: 'overloaded',
        });
      }),
    );

    await user.click(within(drawer).getByRole('button', { name: 'Increase quantity of Range Mat' }));
    expect(within(drawer).getByRole('spinbutton', { name: 'Quantity of Range Mat' })).toHaveValue(2);
    fail();

    await waitFor(() => {
      expect(within(drawer).getByRole('spinbutton', { name: 'Quantity of Range Mat' })).toHaveValue(1);
    });
    expect(within(banner).getByRole('button', { name: 'Cart, 1 item' })).toBeInTheDocument();
    expect(within(drawer).getByRole('alert')).toHaveTextContent('Error: The commerce service is overloaded');
    expect(notificationStore.get()).toEqual({ type: 'error', message: 'Error: The commerce service is overloaded' });
  });

  it('applies a typed quantity on Enter and on blur; 0 removes the line', async () => {
    const { drawer, user, fake } = await openDrawer({ items: [mat, rifle] });
    const matQuantity = within(drawer).getByRole('spinbutton', { name: 'Quantity of Range Mat' });

    await user.clear(matQuantity);
    await user.type(matQuantity, '3{Enter}');
    await waitFor(() => {
      expect(fake.cart().items.find((item) => item.id === 5)?.quantity).toBe(3);
    });
    expect(matQuantity).toHaveValue(3);

    const rifleQuantity = within(drawer).getByRole('spinbutton', { name: /^Quantity of Summit LR/ });
    await user.clear(rifleQuantity);
    await user.type(rifleQuantity, '0');
    await user.tab();
    await waitFor(() => {
      expect(within(drawer).queryByRole('heading', { name: 'Summit LR' })).not.toBeInTheDocument();
    });
    await waitFor(() => {
      expect(fake.cart().items.map((item) => item.id)).toEqual([5]);
    });
    expect(fake.requests).toEqual([
      { method: 'PUT', path: '/api/cart/items/5', body: { quantity: 3 } },
      { method: 'DELETE', path: '/api/cart/items/6', body: null },
    ]);
  });

  it('removes the line when − is pressed at quantity 1, and Remove removes a line', async () => {
    const { drawer, user, fake, banner } = await openDrawer({ items: [mat, rifle] });

    await user.click(within(drawer).getByRole('button', { name: 'Decrease quantity of Range Mat' }));
    await waitFor(() => {
      expect(within(drawer).queryByRole('heading', { name: 'Range Mat' })).not.toBeInTheDocument();
    });
    await user.click(within(drawer).getByRole('button', { name: /^Remove Summit LR/ }));

    expect(await within(drawer).findByText('Your cart is empty.')).toBeInTheDocument();
    expect(within(banner).getByRole('button', { name: 'Cart, 0 items' })).toBeInTheDocument();
    await waitFor(() => {
      expect(fake.requests).toHaveLength(2);
    });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'DELETE /api/cart/items/5',
      'DELETE /api/cart/items/6',
    ]);
    expect(fake.cart().items).toEqual([]);
  });

  it("asks for a promo code, refuses an invalid one and applies a valid one ('Discount code …')", async () => {
    const { drawer, user } = await openDrawer({ items: [rifle] });
    const promo = within(drawer).getByRole('textbox', { name: 'Promo code' });
    const apply = within(drawer).getByRole('button', { name: 'Apply' });

    await user.click(apply);
    expect(await within(drawer).findByText('Promo code is required')).toBeInTheDocument();

    await user.type(promo, 'NOPE');
    await user.click(apply);
    await waitFor(() => {
      expect(within(drawer).getByRole('alert')).toHaveTextContent('Discount code is invalid');
    });
    expect(notificationStore.get()).toEqual({ type: 'error', message: 'Discount code is invalid' });

    await user.clear(promo);
    await user.type(promo, 'save10');
    await user.click(apply);
    await waitFor(() => {
      expect(within(drawer).getByRole('status')).toHaveTextContent('Discount code applied successfully');
    });
    expect(within(drawer).getByText('Discount').closest('div')).toHaveTextContent('Discount-$224.91');
    expect(within(drawer).getByRole('list', { name: 'Applied discounts' })).toHaveTextContent('SAVE10: 10% off');
    expect(promo).toHaveValue('');
  });

  it('lists the inventory warnings beside their lines', async () => {
    const { drawer } = await openDrawer({ items: [{ ...mat, quantity: 3 }] });
    expect(within(drawer).getByText('Only 1 in stock; 3 requested.')).toBeInTheDocument();
  });
});

describe('the 404 rule', () => {
  it('a 404 from the cart read is silent: a fresh empty cart, no error', async () => {
    server.use(
      http.get('/api/cart', () => problem(404, { title: 'Not Found', detail: 'Guest not found', code: 'not_found' })),
    );
    renderRoute('/');
    const banner = await screen.findByRole('banner');
    expect(await within(banner).findByRole('button', { name: 'Cart, 0 items' })).toBeInTheDocument();
    await waitFor(() => {
      expect(notificationStore.get()).toBeNull();
    });
  });

  it('a 404 from a line update is silent: the cart is read again', async () => {
    const { drawer, user } = await openDrawer({ items: [mat] });
    let reads = 0;
    server.use(
      http.put('/api/cart/items/:id', () =>
        problem(404, { title: 'Not Found', detail: 'Guest not found', code: 'not_found' }),
      ),
      http.get('/api/cart', () => {
        reads += 1;
        return HttpResponse.json({ ...createFakeCart().cart() });
      }),
    );

    await user.click(within(drawer).getByRole('button', { name: 'Increase quantity of Range Mat' }));
    expect(await within(drawer).findByText('Your cart is empty.')).toBeInTheDocument();
    expect(reads).toBe(1);
    expect(notificationStore.get()).toBeNull();
  });
});

describe('inventoryWarningText', () => {
  it("writes one line per warning: '{warningType}: ({productName}) - {message}'", () => {
    expect(
      inventoryWarningText([
        {
          warningType: 'InsufficientStock',
          cartItemId: 1,
          productId: 'TF-MAT',
          productName: 'Range Mat',
          message: 'Only 1 in stock; 2 requested.',
        },
        {
          warningType: 'OutOfStock',
          cartItemId: 2,
          productId: 'TF-F10-BLK',
          productName: 'Falcon 10mm',
          message: 'This item is out of stock.',
        },
      ]),
    ).toBe(
      'InsufficientStock: (Range Mat) - Only 1 in stock; 2 requested.\nOutOfStock: (Falcon 10mm) - This item is out of stock.',
    );
  });
});
