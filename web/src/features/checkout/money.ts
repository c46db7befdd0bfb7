import { formatUsd as formatMoney } from '../../lib/money';

/** Currency USD, en-US format (spec section 9): the storefront's one formatter. */
export { formatMoney };

/** A shipping price: 0 reads 'Free'. */
export function formatShipping(amount: number): string {
  return amount === 0 ? 'Free' : formatMoney(amount);
}
