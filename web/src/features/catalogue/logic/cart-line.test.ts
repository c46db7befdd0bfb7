import { describe, expect, it } from 'vitest';
import { defined } from '../../../test/defined';
import { productCard, productPage, sku, summitLrSkus } from '../../../test/fixtures/catalogue';
import { canAddToCart, cartLineFor } from './cart-line';

describe('cartLineFor', () => {
  const product = productPage();
  const fde = defined(summitLrSkus[1]);

  it('builds the cart line payload from the product, the selected sku and its options', () => {
    expect(cartLineFor({ product, sku: fde })).toEqual({
      productId: 'TF-SLR-65CM-24-FDE',
      quantity: 1,
      productName: 'Summit LR',
      options: [
        { label: 'Caliber', value: '6.5 Creedmoor' },
        { label: 'Barrel Length', value: '24"' },
        { label: 'Color', value: 'Flat Dark Earth' },
      ],
      optionIds: [1, 2, 4],
      yotpoProductId: 'TFA-1001',
      imageUrl: fde.imgUrl.src,
      productUrl: '/product/summit%20lr',
      notes: null,
      buildId: null,
    });
  });

  it("carries the chosen add-ons as one option whose values are joined with ' / '", () => {
    const line = cartLineFor({ product, sku: fde, addOns: product.addOns });
    expect(line.options?.at(-1)).toEqual({ label: 'Add-Ons', value: 'Carbon Bipod / Ironclad 20 MOA Rail' });
    expect(line.options).toHaveLength(4);
  });

  it("builds a card's line: no options, no commerce id, the product image when the sku has none", () => {
    const single = sku('TF-QDS', 39, 0, 25, []);
    const card = productCard('QD Sling Mount', { skus: [single] });
    const line = cartLineFor({ product: card, sku: { ...single, imgUrl: { src: '', alt: '' } } });
    expect(line).toMatchObject({ productId: 'TF-QDS', options: [], optionIds: [], yotpoProductId: null, quantity: 1 });
    expect(line.imageUrl).toBe(card.imgUrl.src);
  });
});

describe('canAddToCart', () => {
  it('needs an in-stock sku with a price', () => {
    expect(canAddToCart(sku('A', 10, 0, 1, []))).toBe(true);
    expect(canAddToCart(sku('B', 10, 0, 0, []))).toBe(false);
    expect(canAddToCart(sku('TF-CPH', 0, 0, 1, []))).toBe(false);
    expect(canAddToCart(undefined)).toBe(false);
  });
});
