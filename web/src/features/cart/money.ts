/** The cart uses the storefront's one currency formatter (USD, en-US): `src/lib/money.ts`. */
export { formatUsd } from '../../lib/money';
