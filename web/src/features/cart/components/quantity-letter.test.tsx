import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { cartItem } from '../../../test/fixtures';
import { createFakeCart } from '../../../test/fixtures/cart';
import { renderRoute } from '../../../test/render';
import { server } from '../../../test/server';
import './cart-drawer';

/* Issue 47, item 8 (shopping §5): the cart quantity input's minimum is 0. */

describe('the cart quantity input', { timeout: 20_000 }, () => {
  it('has a minimum of 0: below it the input is invalid, and 0 removes the line', async () => {
    const mat = cartItem({ id: 5, productId: 'TF-MAT', productName: 'Range Mat', quantity: 1 });
    const fake = createFakeCart({ items: [mat] });
    server.use(...fake.handlers);
    const user = userEvent.setup();
    renderRoute('/');
    const banner = await screen.findByRole('banner');
    await user.click(await within(banner).findByRole('button', { name: 'Cart, 1 item' }));
    const drawer = await screen.findByRole('dialog', { name: 'Cart' });
    const input = within(drawer).getByRole('spinbutton', { name: /^Quantity of Range Mat/ });
    expect(input).toHaveAttribute('min', '0');
    await user.clear(input);
    await user.type(input, '-3');
    expect(input).not.toBeValid();
    await user.clear(input);
    await user.type(input, '0');
    await user.tab();
    await waitFor(() => {
      expect(within(drawer).queryByRole('spinbutton', { name: /^Quantity of Range Mat/ })).not.toBeInTheDocument();
    });
  });
});
