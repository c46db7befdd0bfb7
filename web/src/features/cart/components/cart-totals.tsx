import type { Cart } from '../../../api/types';
import { formatUsd } from '../money';

/** Subtotal, discount ('$0.00' when there is none), tax and total, as the cart gives them. */
export function CartTotals({ cart }: { cart: Cart }) {
  return (
    <dl className="cart-totals">
      <div>
        <dt>Subtotal</dt>
        <dd>{formatUsd(cart.subTotal)}</dd>
      </div>
      <div>
        <dt>Discount</dt>
        <dd>{cart.discountAmount > 0 ? `-${formatUsd(cart.discountAmount)}` : formatUsd(0)}</dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd>{formatUsd(cart.taxAmount)}</dd>
      </div>
      <div className="cart-totals__total">
        <dt>Total</dt>
        <dd>{formatUsd(cart.totalAmount)}</dd>
      </div>
    </dl>
  );
}
