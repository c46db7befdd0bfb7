import { describe, expect, it } from 'vitest';
import { cartItem, emptyCart } from '../../test/fixtures';
import { applyChange, describeItem, existingLine, isPendingLine } from './lines';

const black = [{ label: 'Color', value: 'Black' }];
const cap = cartItem({ id: 5, productId: 'TF-CAP', productName: 'Talon Logo Cap', options: black, quantity: 2 });
const cart = { ...emptyCart, items: [cap] };

describe('the existing-line rule', () => {
  it('matches the same sku, options (labels and values, in order) and name', () => {
    expect(existingLine(cart, { productId: 'TF-CAP', productName: 'Talon Logo Cap', options: black })).toBe(cap);
    expect(existingLine(cart, { productId: 'TF-CAP', options: black })).toBe(cap); // no name: the sku's
    expect(
      existingLine(cart, {
        productId: 'TF-CAP',
        productName: 'Talon Logo Cap',
        options: [{ label: 'Color', value: 'Coyote' }],
      }),
    ).toBeUndefined();
    expect(existingLine(cart, { productId: 'TF-CAP', productName: 'Talon Logo Cap', options: [] })).toBeUndefined();
    expect(existingLine(cart, { productId: 'TF-CAP', productName: 'Cap', options: black })).toBeUndefined();
    expect(existingLine(cart, { productId: 'TF-HAT', productName: 'Talon Logo Cap', options: black })).toBeUndefined();
  });
});

describe('applyChange (what the drawer shows before the server answers)', () => {
  it('grows an existing line, or appends a pending line for a new one', () => {
    expect(
      applyChange(cart, {
        kind: 'add',
        item: { productId: 'TF-CAP', productName: 'Talon Logo Cap', options: black },
        pendingId: -1,
      }).items,
    ).toEqual([{ ...cap, quantity: 3 }]);
    const added = applyChange(cart, {
      kind: 'add',
      item: { productId: 'TF-MAT', productName: 'Range Mat' },
      pendingId: -2,
    });
    expect(added.items).toHaveLength(2);
    expect(added.items[1]).toMatchObject({
      id: -2,
      productId: 'TF-MAT',
      productName: 'Range Mat',
      quantity: 1,
      options: [],
    });
    expect(added.items[1] && isPendingLine(added.items[1])).toBe(true);
  });

  it('sets a quantity, and 0 or less removes the line', () => {
    expect(applyChange(cart, { kind: 'quantity', id: 5, quantity: 7 }).items[0]?.quantity).toBe(7);
    expect(applyChange(cart, { kind: 'quantity', id: 5, quantity: 0 }).items).toEqual([]);
    expect(applyChange(cart, { kind: 'remove', id: 5 }).items).toEqual([]);
    expect(applyChange(cart, { kind: 'none' })).toBe(cart);
  });
});

describe('describeItem', () => {
  it('names the product and its options for the add and update messages', () => {
    expect(describeItem('Range Mat', [])).toBe('Range Mat');
    expect(describeItem('Summit LR', [{ label: 'Caliber', value: '6.5 Creedmoor' }, ...black])).toBe(
      'Summit LR (Caliber: 6.5 Creedmoor, Color: Black)',
    );
  });
});
