import type { AddOn, CartOption, Image, NewCartItem, ProductSku } from '../types';

/** The label of the option pair that carries the chosen add-ons. */
export const ADD_ONS_LABEL = 'Add-Ons';

/** Several values of one option are joined with this (spec: cart line payload on add). */
export const OPTION_VALUE_SEPARATOR = ' / ';

interface CartLineProduct {
  title: string;
  url: string;
  imgUrl: Image;
  /** The reviews widget's product id (`TFA-1001`); product pages have it, cards do not. */
  productId?: string;
}

/**
 * The option label/value pairs of a line: one per select (`Caliber: 6.5 Creedmoor`), then the
 * chosen add-ons as one pair whose values are joined with ' / '.
 */
export function cartOptions(sku: ProductSku, addOns: readonly AddOn[] = []): CartOption[] {
  const options = sku.variants.map((variant) => ({
    label: variant.productVariantType.displayTitle,
    value: variant.label,
  }));
  if (addOns.length > 0) {
    options.push({ label: ADD_ONS_LABEL, value: addOns.map((addOn) => addOn.label).join(OPTION_VALUE_SEPARATOR) });
  }
  return options;
}

/**
 * The cart line payload on add (spec: shopping §3) for a product's selected sku and add-ons: the
 * sku code, quantity 1, the product's name, URL and commerce id, the sku's image, the option
 * pairs (add-ons included) and the option ids (the variant ids). Prices, FFL flags and
 * restrictions are the commerce service's to decide, so the contract's line does not carry them.
 */
export function cartLineFor({
  product,
  sku,
  addOns = [],
  quantity = 1,
}: {
  product: CartLineProduct;
  sku: ProductSku;
  addOns?: readonly AddOn[];
  quantity?: number;
}): NewCartItem {
  return {
    productId: sku.sku,
    quantity,
    productName: product.title,
    options: cartOptions(sku, addOns),
    optionIds: sku.variants.map((variant) => variant.id),
    yotpoProductId: product.productId ?? null,
    imageUrl: sku.imgUrl.src || product.imgUrl.src,
    productUrl: product.url,
    notes: null,
    buildId: null,
  };
}

/** Whether a sku can be added: in stock and with a price ('Coming Soon' cannot). */
export function canAddToCart(sku: Pick<ProductSku, 'inStock' | 'finalPrice'> | undefined): boolean {
  return sku !== undefined && sku.inStock && sku.finalPrice > 0;
}
