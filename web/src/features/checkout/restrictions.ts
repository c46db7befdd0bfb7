import type { CartItem } from '../../api/types';
import type { BillingForm, DealerForm } from './schemas';
import { stateCode } from './states';

/** Where the cart ships: the shipping state and zip, or the billing ones when shipping is the same. */
export function destination(billing: BillingForm): { state: string; zip: string } {
  const shipTo = billing.shippingSameAsBilling ? billing.billing : billing.shipping;
  return { state: shipTo.state, zip: shipTo.zip };
}

function blocked(item: Pick<CartItem, 'restrictedStates' | 'restrictedZips'>, state: string, zip: string): boolean {
  const code = stateCode(state);
  const byState = code !== '' && item.restrictedStates.some((restricted) => stateCode(restricted) === code);
  const trimmedZip = zip.trim();
  const byZip =
    trimmedZip !== '' &&
    item.restrictedZips.some((restricted) => restricted.trim() !== '' && trimmedZip.includes(restricted.trim()));
  return byState || byZip;
}

/**
 * The cart lines that may not ship where the forms say (spec section 5): a non-FFL item is checked
 * against the shipping state and zip (the billing ones when shipping is the same), an FFL item
 * against the dealer's.
 */
export function restrictedItems<Item extends Pick<CartItem, 'isFflItem' | 'restrictedStates' | 'restrictedZips'>>(
  items: readonly Item[],
  billing: BillingForm,
  dealer: DealerForm | null,
): Item[] {
  const shipTo = destination(billing);
  return items.filter((item) =>
    item.isFflItem ? blocked(item, dealer?.state ?? '', dealer?.zip ?? '') : blocked(item, shipTo.state, shipTo.zip),
  );
}

export function hasFflItems(items: readonly Pick<CartItem, 'isFflItem'>[]): boolean {
  return items.some((item) => item.isFflItem);
}

export function allFflItems(items: readonly Pick<CartItem, 'isFflItem'>[]): boolean {
  return items.length > 0 && items.every((item) => item.isFflItem);
}
