const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** USD in the en-US format: `$1,234.50`; zero is `$0.00` (spec constants). */
export function formatUsd(amount: number): string {
  return usd.format(Number.isFinite(amount) ? amount : 0);
}
