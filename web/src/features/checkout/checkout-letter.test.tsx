import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Cart } from '../../api/types';
import '../../app/routes/checkout';
import { cartItem, emptyCart } from '../../test/fixtures';
import { checkoutCart, checkoutHandlers } from '../../test/fixtures/checkout';
import { renderRoute } from '../../test/render';
import { server } from '../../test/server';
import { RESTRICTED_HINT, RESTRICTED_LIST, RESTRICTED_TITLE } from './messages';
import { emptyBillingForm, type BillingForm } from './schemas';
import { clearForms, saveBillingForm } from './storage';

/* Issue 47, item 8: the checkout requirements that had no test (shopping spec §2, §4, §8). */

vi.setConfig({ testTimeout: 20_000 });
configure({ asyncUtilTimeout: 5_000 });

const billing: BillingForm = {
  ...emptyBillingForm,
  email: 'jane@example.com',
  billing: {
    ...emptyBillingForm.billing,
    firstName: 'Jane',
    lastName: 'Doe',
    street: '100 Congress Ave',
    city: 'Austin',
    state: 'TX',
    zip: '78701',
  },
  shippingMethodId: '2',
};

const reviewed: Cart = {
  ...checkoutCart,
  subTotal: 238,
  shipping: 19.99,
  discountAmount: 10,
  taxAmount: 19.64,
  totalAmount: 267.63,
};

beforeEach(() => {
  clearForms();
});

const summary = () => screen.getByRole('complementary', { name: 'Order summary' });

describe('checkout, to the letter (issue 47)', () => {
  it("the progress bar's first step, once complete, returns to billing", async () => {
    saveBillingForm(billing);
    server.use(...checkoutHandlers(reviewed));
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/checkout?stepId=payment');
    const steps = await screen.findByRole('navigation', { name: 'Checkout steps' });
    await user.click(within(steps).getByRole('button', { name: /^1\. Billing & shipping/ }));
    expect(await screen.findByRole('form', { name: 'Billing & shipping' })).toBeInTheDocument();
    expect(router.location.search).toBe('?stepId=billing');
  });

  it("the summary's '{n} Item(s) in Cart' list collapses, on both steps", async () => {
    server.use(...checkoutHandlers());
    const user = userEvent.setup({ delay: null });
    renderRoute('/checkout');
    await screen.findByRole('form', { name: 'Billing & shipping' });
    const toggle = within(summary()).getByRole('button', { name: '2 Item(s) in Cart' });
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(within(summary()).getByText('Patrol Soft Case')).toBeVisible();
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(within(summary()).getByText('Patrol Soft Case')).not.toBeVisible();
    await user.click(toggle);
    expect(within(summary()).getByText('Patrol Soft Case')).toBeVisible();
  });

  it('the payment step lists every total, the ship-to address and the shipping method', async () => {
    saveBillingForm(billing);
    server.use(...checkoutHandlers(reviewed));
    renderRoute('/checkout?stepId=payment');
    await screen.findByRole('button', { name: 'Place Order' });
    expect(within(summary()).getByRole('button', { name: '2 Item(s) in Cart' })).toBeInTheDocument();
    const totals = summary().querySelector('dl');
    const pairs = [...(totals?.querySelectorAll('dt') ?? [])].map((term) => [
      term.textContent,
      term.nextElementSibling?.textContent,
    ]);
    expect(pairs).toEqual([
      ['Subtotal', '$238.00'],
      ['Shipping', '$19.99'],
      ['Product Discount', '$10.00'],
      ['Sales Tax', '$19.64'],
      ['Order Total', '$267.63'],
    ]);
    expect(within(summary()).getByRole('region', { name: 'Ship to' })).toHaveTextContent(
      'Jane Doe100 Congress AveAustin, TX 78701',
    );
    expect(await within(summary()).findByText('Expedited: $19.99')).toBeInTheDocument();
  });

  it('Next moves to payment only when the computed cart has items', async () => {
    saveBillingForm(billing);
    let computed: Cart = reviewed;
    server.use(
      ...checkoutHandlers(),
      http.post('/api/cart/compute', () => HttpResponse.json(computed)),
    );
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/checkout');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await waitFor(() => {
      expect(router.location.search).toBe('?stepId=payment');
    });

    computed = { ...emptyCart, id: 7 };
    router.navigate('/checkout?stepId=billing');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    // an empty computed cart: never the payment step (the empty cart then goes home)
    await waitFor(() => {
      expect(router.location.pathname).toBe('/');
    });
    const afterSecondNext = router.visited.slice(router.visited.lastIndexOf('/checkout?stepId=billing'));
    expect(afterSecondNext).not.toContain('/checkout?stepId=payment');
  });

  it('the restricted-items notice: its texts, the items and the support e-mail', async () => {
    saveBillingForm(billing);
    const restricted: Cart = {
      ...checkoutCart,
      items: [cartItem({ id: 12, productName: 'Patrol Soft Case', restrictedStates: ['TX'] })],
    };
    server.use(...checkoutHandlers(restricted));
    const user = userEvent.setup({ delay: null });
    renderRoute('/checkout');
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    const modal = await screen.findByRole('dialog', { name: RESTRICTED_TITLE });
    expect(modal).toHaveTextContent(RESTRICTED_HINT);
    expect(modal).toHaveTextContent(RESTRICTED_LIST);
    expect(within(modal).getByRole('listitem')).toHaveTextContent('Patrol Soft Case');
    expect(within(modal).getByRole('link', { name: 'support@example.test' })).toHaveAttribute(
      'href',
      'mailto:support@example.test',
    );
  });

  it('the FFL notice: a licensed dealer, ATF form 4473, a background check, the licence to the FFL e-mail', async () => {
    const ffl: Cart = { ...checkoutCart, items: [cartItem({ id: 12, productName: 'Summit LR', isFflItem: true })] };
    server.use(...checkoutHandlers(ffl));
    renderRoute('/checkout');
    const dealer = await screen.findByRole('group', { name: 'Dealer Address' });
    expect(dealer).toHaveTextContent('must be shipped to a licensed dealer (FFL)');
    expect(dealer).toHaveTextContent('ATF form 4473 and a background check');
    expect(dealer).toHaveTextContent(
      'Please ask your dealer to email their license to ffl@example.test with your name and order number.',
    );
    expect(within(dealer).getByRole('link', { name: 'ffl@example.test' })).toHaveAttribute(
      'href',
      'mailto:ffl@example.test',
    );
  });
});
