import type { ProductSku } from '../types';

/**
 * A product's option selects and their cascade (spec: shopping §2), with Hydrogen's split of a
 * value's state: `exists` (some sku has it together with the earlier choices) and `available`
 * (one of those skus is in stock). A value that does not exist is not offered; one that exists but
 * is out of stock stays selectable and is marked.
 */

/** One select: the variant type's slug (`caliber`) and label (`Caliber`). */
export interface SelectKey {
  key: string;
  label: string;
}

export interface OptionValue {
  /** The variant id (the same for the same type and value across products). */
  id: number;
  /** The value as shown: `6.5 Creedmoor`. */
  label: string;
  exists: boolean;
  available: boolean;
}

export interface OptionSelect extends SelectKey {
  /** Every value of this select across the product's skus, in the order the skus list them. */
  values: OptionValue[];
  /** The chosen value's label. */
  selected: string;
}

/** The chosen value (label) of each select, in the selects' order. */
export type Selection = readonly string[];

/** The selects: the variant types in the order the skus list them (all skus share them). */
export function selectKeys(skus: readonly ProductSku[]): SelectKey[] {
  const first = skus[0];
  if (!first) return [];
  return first.variants.map((variant) => ({
    key: variant.productVariantType.title,
    label: variant.productVariantType.displayTitle,
  }));
}

/**
 * Whether a select is the colour, whose values get swatches: the variant type's title in any
 * letter case and either spelling (`color`, `Color`, `colour`, ` COLOURS `), as the content
 * service's editors type it.
 */
export function isColourSelect(key: string): boolean {
  return /^colou?rs?$/.test(key.trim().toLowerCase());
}

function valueOf(sku: ProductSku, key: string): string | undefined {
  return sku.variants.find((variant) => variant.productVariantType.title === key)?.label;
}

/** The skus that agree with the selection's first `count` choices. */
function matching(skus: readonly ProductSku[], keys: readonly SelectKey[], selection: Selection, count: number) {
  return skus.filter((sku) =>
    keys.slice(0, count).every((select, index) => valueOf(sku, select.key) === selection[index]),
  );
}

/** The selection that picks `sku`. */
export function selectionOf(skus: readonly ProductSku[], sku: ProductSku): Selection {
  return selectKeys(skus).map((select) => valueOf(sku, select.key) ?? '');
}

/** The sku matching every chosen value; undefined when that combination does not exist. */
export function skuFor(skus: readonly ProductSku[], selection: Selection): ProductSku | undefined {
  const keys = selectKeys(skus);
  return matching(skus, keys, selection, keys.length)[0];
}

/** The selects with each value's `exists`/`available` state under the earlier choices. */
export function optionSelects(skus: readonly ProductSku[], selection: Selection): OptionSelect[] {
  const keys = selectKeys(skus);
  return keys.map((select, index) => {
    const candidates = matching(skus, keys, selection, index);
    const values: OptionValue[] = [];
    for (const sku of skus) {
      const variant = sku.variants.find((v) => v.productVariantType.title === select.key);
      if (!variant || values.some((value) => value.label === variant.label)) continue;
      const withValue = candidates.filter((candidate) => valueOf(candidate, select.key) === variant.label);
      values.push({
        id: variant.id,
        label: variant.label,
        exists: withValue.length > 0,
        available: withValue.some((candidate) => candidate.inStock),
      });
    }
    return { ...select, values, selected: selection[index] ?? '' };
  });
}

/**
 * Chooses `value` in select `index`: the earlier choices stay, and every later select is reset to
 * its first value (in the order it lists them) that exists with the choices before it (the cascade).
 */
export function choose(skus: readonly ProductSku[], selection: Selection, index: number, value: string): Selection {
  const count = selectKeys(skus).length;
  const next = [...selection.slice(0, index), value];
  for (let later = index + 1; later < count; later += 1) {
    const first = optionSelects(skus, next)[later]?.values.find((candidate) => candidate.exists);
    next.push(first?.label ?? '');
  }
  return next;
}

/**
 * The sku a product page starts with: the one named by the URL (`?sku=`, matched ignoring case),
 * else the product's displayed sku, else its first.
 */
export function initialSku(
  product: { skus: readonly ProductSku[]; displayedSku: string | null },
  requested: string | null,
): ProductSku | undefined {
  const wanted = requested?.trim().toLowerCase();
  return (
    (wanted ? product.skus.find((sku) => sku.sku.toLowerCase() === wanted) : undefined) ??
    product.skus.find((sku) => sku.sku === product.displayedSku) ??
    product.skus[0]
  );
}
