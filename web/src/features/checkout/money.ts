const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Currency USD, en-US format (spec section 9). */
export function formatMoney(amount: number): string {
  return usd.format(amount);
}

/** A shipping price: 0 reads 'Free'. */
export function formatShipping(amount: number): string {
  return amount === 0 ? 'Free' : formatMoney(amount);
}
