import type { Cart, CartItem, CartOption, InventoryWarning, NewCartItem } from '../../api/types';

/** Pure cart-line logic: the existing-line rule, messages, and the optimistic changes. */

/** The line's options, never null. */
export function optionsOf(item: Pick<NewCartItem, 'options'>): CartOption[] {
  return item.options ?? [];
}

function sameOptions(a: readonly CartOption[], b: readonly CartOption[]): boolean {
  return (
    a.length === b.length &&
    a.every((option, index) => option.label === b[index]?.label && option.value === b[index].value)
  );
}

/**
 * The spec's existing-line rule: the same sku, the same options (labels and values, in order) and
 * the same name. A payload without a name gets the sku's name upstream, so it matches any name.
 */
export function isSameLine(line: CartItem, item: NewCartItem): boolean {
  return (
    line.productId === item.productId &&
    (item.productName ?? line.productName) === line.productName &&
    sameOptions(line.options, optionsOf(item))
  );
}

/** The cart line an add would grow, if there is one. */
export function existingLine(cart: Pick<Cart, 'items'>, item: NewCartItem): CartItem | undefined {
  return cart.items.find((line) => isSameLine(line, item));
}

/**
 * The line of an add's answer that the add made or grew: the line grown (`grownId`), else the
 * sku's line with the item's options, else the sku's newest line. The toast names this line, as
 * the cart has it, not what the page sent (issue 47: a page's add-on the cart did not take must
 * not be announced as added).
 */
export function answeredLine(cart: Pick<Cart, 'items'>, item: NewCartItem, grownId?: number): CartItem | undefined {
  const grown = grownId === undefined ? undefined : cart.items.find((line) => line.id === grownId);
  if (grown) return grown;
  const lines = cart.items.filter((line) => line.productId === item.productId);
  const sameChoice = lines.find((line) => sameOptions(line.options, optionsOf(item)));
  return (
    sameChoice ??
    lines.reduce<CartItem | undefined>((newest, line) => (!newest || line.id > newest.id ? line : newest), undefined)
  );
}

/** '{product and options}' of the add and update messages: `Name (Label: Value, Label: Value)`. */
export function describeItem(name: string, options: readonly CartOption[]): string {
  if (options.length === 0) return name;
  return `${name} (${options.map((option) => `${option.label}: ${option.value}`).join(', ')})`;
}

export function addedMessage(description: string): string {
  return `You added ${description} to your shopping cart`;
}

export function updatedMessage(description: string): string {
  return `You updated ${description} in your shopping cart`;
}

/** One line per warning: '{warningType}: ({productName}) - {message}'. */
export function inventoryWarningText(warnings: readonly InventoryWarning[]): string {
  return warnings.map((warning) => `${warning.warningType}: (${warning.productName}) - ${warning.message}`).join('\n');
}

/** A warning's identity: the same type, product and message is the same warning. */
export function warningKey(warning: InventoryWarning): string {
  return JSON.stringify([warning.warningType, warning.productName, warning.message]);
}

/** A line the server has not confirmed yet (an add in flight) carries a negative id. */
export function isPendingLine(line: Pick<CartItem, 'id'>): boolean {
  return line.id < 0;
}

/** A change the UI shows before the server confirms it. */
export type CartChange =
  | { kind: 'add'; item: NewCartItem; pendingId: number }
  | { kind: 'quantity'; id: number; quantity: number }
  | { kind: 'remove'; id: number }
  | { kind: 'none' };

/** The cart as it will be once `change` is confirmed (amounts stay the server's until it answers). */
export function applyChange(cart: Cart, change: CartChange): Cart {
  switch (change.kind) {
    case 'none':
      return cart;
    case 'remove':
      return { ...cart, items: cart.items.filter((line) => line.id !== change.id) };
    case 'quantity':
      if (change.quantity <= 0) return applyChange(cart, { kind: 'remove', id: change.id });
      return {
        ...cart,
        items: cart.items.map((line) => (line.id === change.id ? { ...line, quantity: change.quantity } : line)),
      };
    case 'add': {
      const quantity = change.item.quantity ?? 1;
      const line = existingLine(cart, change.item);
      if (line) {
        return applyChange(cart, { kind: 'quantity', id: line.id, quantity: line.quantity + quantity });
      }
      return { ...cart, items: [...cart.items, pendingLine(change.item, change.pendingId, quantity)] };
    }
  }
}

function pendingLine(item: NewCartItem, id: number, quantity: number): CartItem {
  return {
    id,
    productId: item.productId,
    yotpoProductId: null,
    productName: item.productName ?? item.productId,
    options: optionsOf(item),
    optionIds: item.optionIds ?? null,
    // unknown until the server prices the line; a pending line shows no price
    price: 0,
    productPrice: 0,
    quantity,
    imageUrl: item.imageUrl ?? '',
    productUrl: item.productUrl ?? null,
    notes: item.notes ?? null,
    buildId: null,
    isFflItem: false,
    isReceiverItem: false,
    restrictedStates: [],
    restrictedZips: [],
  };
}
