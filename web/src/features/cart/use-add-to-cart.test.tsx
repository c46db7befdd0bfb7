import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { cartItem, emptyCart } from '../../test/fixtures';
import { createFakeCart, newItem } from '../../test/fixtures/cart';
import { createTestQueryClient } from '../../test/render';
import { problem, server } from '../../test/server';
import { http, HttpResponse } from 'msw';
import { notificationStore } from '../../components/notifications/store';
import { cartAnnouncementStore } from './feedback';
import { cartDrawerStore, cartQuery, useCartItemCount } from './index';
import { useAddToCart } from './use-add-to-cart';

function setup() {
  const queryClient = createTestQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  const hook = renderHook(() => ({ add: useAddToCart(), count: useCartItemCount(), cart: useQuery(cartQuery).data }), {
    wrapper,
  });
  return { queryClient, ...hook };
}

describe('useAddToCart', () => {
  it("adds a new line: POST with the payload, the server's cart replaces the cached one, the drawer opens, 'You added …'", async () => {
    const fake = createFakeCart();
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.cart?.items).toEqual([]);
    });

    act(() => {
      result.current.add.mutate(newItem('TF-SLR-65CM-24-BLK', { options: [{ label: 'Color', value: 'Black' }] }));
    });
    // at once: the line (pending) and the badge, the drawer open
    expect(cartDrawerStore.get()).toBe(true);
    await waitFor(() => {
      expect(result.current.count).toBe(1);
    });

    await waitFor(() => {
      expect(result.current.add.isSuccess).toBe(true);
    });
    expect(fake.requests.map((request) => request.method)).toEqual(['POST']);
    expect(fake.requests[0]?.body).toMatchObject({
      productId: 'TF-SLR-65CM-24-BLK',
      quantity: 1,
      productName: 'Summit LR',
    });
    await waitFor(() => {
      expect(result.current.cart?.items).toEqual([
        expect.objectContaining({ id: 101, productPrice: 2249.1, quantity: 1 }),
      ]);
    });
    expect(result.current.cart?.subTotal).toBe(2249.1);
    expect(notificationStore.get()).toEqual({
      type: 'success',
      message: 'You added Summit LR (Color: Black) to your shopping cart',
    });
    expect(cartAnnouncementStore.get()?.message).toBe('You added Summit LR (Color: Black) to your shopping cart');
  });

  it("grows an existing line with the same options and name by one, as an update: 'You updated …'", async () => {
    const options = [{ label: 'Color', value: 'Black' }];
    const fake = createFakeCart({
      items: [cartItem({ id: 5, productId: 'TF-CAP-BLK', productName: 'Talon Logo Cap', options, quantity: 2 })],
    });
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.count).toBe(2);
    });

    act(() => {
      result.current.add.mutate(newItem('TF-CAP-BLK', { options }));
    });
    await waitFor(() => {
      expect(result.current.add.isSuccess).toBe(true);
    });

    expect(fake.requests).toEqual([{ method: 'PUT', path: '/api/cart/items/5', body: { quantity: 3 } }]);
    expect(result.current.add.data?.action).toBe('updated');
    expect(result.current.count).toBe(3);
    expect(notificationStore.get()?.message).toBe('You updated Talon Logo Cap (Color: Black) in your shopping cart');
  });

  it('adds other options as a new line', async () => {
    const fake = createFakeCart({
      items: [
        cartItem({
          id: 5,
          productId: 'TF-CAP-BLK',
          productName: 'Talon Logo Cap',
          options: [{ label: 'Size', value: 'S' }],
        }),
      ],
    });
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.count).toBe(1);
    });

    act(() => {
      result.current.add.mutate(newItem('TF-CAP-BLK', { options: [{ label: 'Size', value: 'M' }] }));
    });
    await waitFor(() => {
      expect(result.current.add.isSuccess).toBe(true);
    });
    expect(fake.requests.map((request) => request.method)).toEqual(['POST']);
    expect(result.current.cart?.items).toHaveLength(2);
  });

  it('two rapid adds of the same product end with quantity 2: serialised, the second an update', async () => {
    const fake = createFakeCart();
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.cart).toBeDefined();
    });
    fake.hold();

    act(() => {
      result.current.add.mutate(newItem('TF-CAP-BLK'));
      result.current.add.mutate(newItem('TF-CAP-BLK'));
    });
    // both shown at once, as one line; the second waits for the first's answer
    await waitFor(() => {
      expect(result.current.count).toBe(2);
    });
    expect(result.current.cart?.items).toHaveLength(1);
    await waitFor(() => {
      expect(fake.requests).toHaveLength(1);
    });
    fake.release();

    await waitFor(() => {
      expect(fake.requests).toHaveLength(2);
    });
    await waitFor(() => {
      expect(result.current.add.isPending).toBe(false);
    });
    expect(fake.requests).toEqual([
      expect.objectContaining({ method: 'POST' }),
      { method: 'PUT', path: '/api/cart/items/101', body: { quantity: 2 } },
    ]);
    expect(fake.stats.maxConcurrentWrites).toBe(1);
    expect(fake.cart().items).toEqual([expect.objectContaining({ quantity: 2 })]);
    await waitFor(() => {
      expect(result.current.cart?.items).toEqual([expect.objectContaining({ id: 101, quantity: 2 })]);
    });
    expect(result.current.count).toBe(2);
    expect(notificationStore.get()?.message).toBe('You updated Talon Logo Cap in your shopping cart');
  });

  it('shows inventory warnings of the answer as one warning toast, a line per warning, and revalidates the cart', async () => {
    const fake = createFakeCart({
      items: [cartItem({ id: 5, productId: 'TF-MAT', productName: 'Range Mat', quantity: 1 })],
    });
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.count).toBe(1);
    });

    act(() => {
      result.current.add.mutate(newItem('TF-MAT'));
    });
    await waitFor(() => {
      expect(notificationStore.get()).toEqual({
        type: 'warning',
        message: 'InsufficientStock: (Range Mat) - Only 1 in stock; 2 requested.',
      });
    });
    expect(result.current.cart?.inventoryWarnings).toHaveLength(1);
  });

  it("reports a failed add as 'Error: {server message}' and takes the pending line away", async () => {
    const fake = createFakeCart();
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.cart).toBeDefined();
    });
    server.use(
      http.post('/api/cart/items', () =>
        problem(502, { title: 'Bad Gateway', detail: 'The commerce service failed', code: 'upstream_failed' }),
      ),
    );

    act(() => {
      result.current.add.mutate(newItem('TF-CAP-BLK'));
    });
    await waitFor(() => {
      expect(result.current.add.isError).toBe(true);
    });
    expect(notificationStore.get()).toEqual({ type: 'error', message: 'Error: The commerce service failed' });
    expect(result.current.count).toBe(0);
    expect(result.current.cart?.items).toEqual([]);
  });
  it('names in its toast what the cart answer says was added, not what the page asked for (issue 47)', async () => {
    const fake = createFakeCart();
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.cart).toBeDefined();
    });
    // the cart's answer holds the sku without the add-on the page sent
    const answered = {
      ...emptyCart,
      items: [
        cartItem({
          id: 7,
          productId: 'TF-SLR-65CM-24-BLK',
          productName: 'Summit LR',
          options: [{ label: 'Caliber', value: '6.5 Creedmoor' }],
        }),
      ],
    };
    server.use(http.post('/api/cart/items', () => HttpResponse.json(answered)));

    act(() => {
      result.current.add.mutate(
        newItem('TF-SLR-65CM-24-BLK', {
          options: [
            { label: 'Caliber', value: '6.5 Creedmoor' },
            { label: 'Add-Ons', value: 'Ironclad 20 MOA Rail' },
          ],
        }),
      );
    });
    await waitFor(() => {
      expect(result.current.add.isSuccess).toBe(true);
    });
    expect(notificationStore.get()?.message).toBe('You added Summit LR (Caliber: 6.5 Creedmoor) to your shopping cart');
  });

  it("announces the BFF's refusal of an add it cannot price in full, naming the product, and adds nothing", async () => {
    const fake = createFakeCart();
    server.use(...fake.handlers);
    const { result } = setup();
    await waitFor(() => {
      expect(result.current.cart).toBeDefined();
    });
    const detail =
      'Summit LR was not added to your cart: its price, with the options and add-ons you chose, cannot be checked right now. Please try again in a moment.';
    server.use(
      http.post('/api/cart/items', () =>
        problem(503, { title: 'Service Unavailable', detail, code: 'cart_line_unpriced' }),
      ),
    );

    act(() => {
      result.current.add.mutate(
        newItem('TF-SLR-65CM-24-BLK', { options: [{ label: 'Add-Ons', value: 'Ironclad 20 MOA Rail' }] }),
      );
    });
    await waitFor(() => {
      expect(result.current.add.isError).toBe(true);
    });
    expect(notificationStore.get()).toEqual({ type: 'error', message: `Error: ${detail}` });
    expect(result.current.cart?.items).toEqual([]);
  });
});
