import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

/** The lazily loaded page's first render (its chunk is transformed on first use). */
const FIRST_RENDER = { timeout: 5000 };
import { emptyCart } from '../../test/fixtures';
import { checkoutHandlers, orderHandlers, placedOrder } from '../../test/fixtures/checkout';
import { renderRoute } from '../../test/render';
import { server } from '../../test/server';

describe('checkout page', () => {
  it('sends a shopper with an empty cart home with the warning', async () => {
    server.use(...checkoutHandlers(emptyCart));
    const { router } = renderRoute('/checkout');

    expect(
      await screen.findByText('Your cart is empty, so we have redirected you to the home page', {}, FIRST_RENDER),
    ).toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
  });

  it('sends the payment step back to billing while the billing step is not complete', async () => {
    server.use(...checkoutHandlers());
    const { router } = renderRoute('/checkout?stepId=payment');

    expect(await screen.findByRole('form', { name: 'Billing & shipping' }, FIRST_RENDER)).toBeInTheDocument();
    expect(router.location.search).toBe('?stepId=billing');
  });

  it('shows the billing errors with the first field focused', async () => {
    const user = userEvent.setup();
    server.use(...checkoutHandlers());
    renderRoute('/checkout');

    const form = await screen.findByRole('form', { name: 'Billing & shipping' }, FIRST_RENDER);
    expect(await within(form).findByRole('radio', { name: 'Standard Ground: Free' })).toBeChecked();
    expect(screen.getByRole('button', { name: '2 Item(s) in Cart' })).toHaveAttribute('aria-expanded', 'true');
    await user.click(within(form).getByRole('button', { name: 'Next' }));

    expect(await within(form).findByText('Errors in the Billing Form')).toBeInTheDocument();
    expect(within(form).getByRole('alert')).toHaveTextContent('Errors in the Billing Form');
    expect(within(form).getByRole('textbox', { name: 'Email' })).toHaveFocus();
    expect(within(form).getAllByText('Required')).toHaveLength(7);
  });
});

describe('saved forms', () => {
  it('keeps the billing form in the session as it is typed, so a reload shows it again', async () => {
    const user = userEvent.setup();
    server.use(...checkoutHandlers());
    const first = renderRoute('/checkout');
    const form = await screen.findByRole('form', { name: 'Billing & shipping' }, FIRST_RENDER);
    await user.type(within(form).getByRole('textbox', { name: 'Email' }), 'jane@example.com');
    await user.type(within(form).getByRole('textbox', { name: 'Phone (optional)' }), '5125550100');
    first.unmount();

    renderRoute('/checkout');
    const again = await screen.findByRole('form', { name: 'Billing & shipping' }, FIRST_RENDER);
    expect(within(again).getByRole('textbox', { name: 'Email' })).toHaveValue('jane@example.com');
    expect(within(again).getByRole('textbox', { name: 'Phone (optional)' })).toHaveValue('(512) 555-0100');
    expect(Object.keys(JSON.parse(sessionStorage.getItem('billingForm') ?? '{}') as object)).not.toContain(
      'cardNumber',
    );
  });
});

describe('confirmation page', () => {
  it('shows the order: number, e-mail, shipping address, items, totals', async () => {
    server.use(...orderHandlers());
    renderRoute(`/confirm/${String(placedOrder.id)}`);

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Thank You! Your order has been received' }, FIRST_RENDER),
    ).toBeInTheDocument();
    expect(screen.getByText('100001')).toBeInTheDocument();
    expect(screen.getByText(/a confirmation email was sent to jane@example\.com/)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Shipping Address' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Dealer Address' })).not.toBeInTheDocument();
    const row = screen.getByRole('row', { name: /Patrol Soft Case/ });
    expect(row).toHaveTextContent('38" / Black');
    expect(row).toHaveTextContent('$119.00');
    expect(row).toHaveTextContent('$238.00');
    const totals = screen.getByText('Subtotal').closest('dl');
    expect(totals).toHaveTextContent('Subtotal$238.00ShippingFreeDiscount Applied-$23.80Tax$13.40Total$227.60');
    expect(screen.getByRole('link', { name: 'Continue shopping' })).toHaveAttribute('href', '/');
  });

  it('shows the dealer and hides the shipping address when every item is FFL', async () => {
    server.use(
      ...orderHandlers({
        ...placedOrder,
        dealerName: 'Lone Star Arms',
        dealerAddress: '200 Ranch Rd',
        dealerCity: 'Dallas',
        dealerState: 'TX',
        dealerZip: '75201',
        items: placedOrder.items.map((item) => ({ ...item, isFflItem: true })),
        discountAmount: 0,
      }),
    );
    renderRoute(`/confirm/${String(placedOrder.id)}`);

    expect(await screen.findByRole('heading', { name: 'Dealer Address' }, FIRST_RENDER)).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Dealer Address' })).toHaveTextContent(
      /^Dealer AddressLone Star Arms200 Ranch RdDallas, TX 75201/,
    );
    expect(screen.queryByRole('heading', { name: 'Shipping Address' })).not.toBeInTheDocument();
    expect(screen.queryByText('Discount Applied')).not.toBeInTheDocument();
  });

  it('has a clear not-found state for an unknown order', async () => {
    server.use(...orderHandlers());
    renderRoute('/confirm/42');

    expect(await screen.findByRole('heading', { level: 1, name: 'Order not found' }, FIRST_RENDER)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Continue shopping' })).toHaveAttribute('href', '/');
  });
});
