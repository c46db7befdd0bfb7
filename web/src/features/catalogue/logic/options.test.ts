import { describe, expect, it } from 'vitest';
import { defined } from '../../../test/defined';
import { foundersTeeSkus, productPage, summitLrSkus } from '../../../test/fixtures/catalogue';
import { choose, initialSku, optionSelects, selectionOf, selectKeys, skuFor, type OptionSelect } from './options';

const existing = (select: OptionSelect | undefined) =>
  select?.values.filter((value) => value.exists).map((value) => value.label);
const start = (code: string) => {
  return selectionOf(
    summitLrSkus,
    defined(
      summitLrSkus.find((candidate) => candidate.sku === code),
      code,
    ),
  );
};

describe('Summit LR: three cascading selects', () => {
  it('has the selects in the order the skus list them', () => {
    expect(selectKeys(summitLrSkus)).toEqual([
      { key: 'caliber', label: 'Caliber' },
      { key: 'barrel-length', label: 'Barrel Length' },
      { key: 'color', label: 'Color' },
    ]);
  });

  it('narrows each later select to the values that exist with the earlier choices', () => {
    const selects = optionSelects(summitLrSkus, start('TF-SLR-65CM-24-BLK'));
    expect(existing(selects[0])).toEqual(['6.5 Creedmoor', '.308 Win', '6mm Creedmoor', '.300 PRC']);
    expect(existing(selects[1])).toEqual(['24"', '26"']);
    expect(existing(selects[2])).toEqual(['Black', 'Flat Dark Earth', 'Sniper Grey']);
    // every value of the select is listed; those without a sku under the earlier choices do not exist
    expect(selects[1]?.values.map((value) => value.label)).toEqual(['24"', '26"', '20"']);
    expect(selects[1]?.values.find((value) => value.label === '20"')?.exists).toBe(false);
  });

  it('keeps an out-of-stock value selectable but not available (exists/available split)', () => {
    const color = optionSelects(summitLrSkus, start('TF-SLR-65CM-24-BLK'))[2];
    expect(color?.values.find((value) => value.label === 'Sniper Grey')).toMatchObject({
      exists: true,
      available: false,
    });
    expect(color?.values.find((value) => value.label === 'Black')).toMatchObject({ exists: true, available: true });
    const selection = choose(summitLrSkus, start('TF-SLR-65CM-24-BLK'), 2, 'Sniper Grey');
    expect(skuFor(summitLrSkus, selection)?.sku).toBe('TF-SLR-65CM-24-GRY');
    expect(skuFor(summitLrSkus, selection)?.inStock).toBe(false);
  });

  it('resets the later selects to their first valid value when an earlier one changes', () => {
    const selection = choose(summitLrSkus, start('TF-SLR-65CM-24-FDE'), 0, '.308 Win');
    expect(selection).toEqual(['.308 Win', '24"', 'Black']);
    expect(skuFor(summitLrSkus, selection)).toMatchObject({ sku: 'TF-SLR-308-24-BLK', finalPrice: 2199 });
    const selects = optionSelects(summitLrSkus, selection);
    expect(existing(selects[1])).toEqual(['24"', '20"']);
    expect(existing(selects[2])).toEqual(['Black']);

    const shorter = choose(summitLrSkus, selection, 1, '20"');
    expect(shorter).toEqual(['.308 Win', '20"', 'Black']);
    expect(skuFor(summitLrSkus, shorter)).toMatchObject({ sku: 'TF-SLR-308-20-BLK', finalPrice: 2149 });
    expect(existing(optionSelects(summitLrSkus, shorter)[2])).toEqual(['Black', 'Flat Dark Earth']);
  });

  it('resets only the selects after the one changed', () => {
    const selection = choose(summitLrSkus, start('TF-SLR-6CM-24-GRY'), 1, '26"');
    expect(selection).toEqual(['6mm Creedmoor', '26"', 'Black']);
    expect(skuFor(summitLrSkus, selection)).toMatchObject({ sku: 'TF-SLR-6CM-26-BLK', discountPercentage: 15 });
  });

  it('a value whose every sku is out of stock is not available at an earlier select', () => {
    const selects = optionSelects(summitLrSkus, start('TF-SLR-300PRC-26-BLK'));
    expect(selects[0]?.values.every((value) => value.available)).toBe(true);
    expect(selects[2]?.values.find((value) => value.label === 'Flat Dark Earth')).toMatchObject({
      exists: true,
      available: false,
    });
  });
});

describe('Founders Tee: a sparse two-select product', () => {
  const black = selectionOf(foundersTeeSkus, defined(foundersTeeSkus[0]));

  it('narrows Size to the sizes of the chosen Color and resets it to the first', () => {
    expect(existing(optionSelects(foundersTeeSkus, black)[1])).toEqual(['S', 'M', 'L', 'XL', 'XXL']);
    const heather = choose(foundersTeeSkus, black, 0, 'Heather Grey');
    expect(heather).toEqual(['Heather Grey', 'M']);
    expect(existing(optionSelects(foundersTeeSkus, heather)[1])).toEqual(['M', 'L', 'XL']);
  });

  it('a colour whose only size is out of stock is selectable and marked', () => {
    const colors = optionSelects(foundersTeeSkus, black)[0];
    expect(colors?.values.find((value) => value.label === 'Navy')).toMatchObject({ exists: true, available: false });
    const navy = choose(foundersTeeSkus, black, 0, 'Navy');
    expect(navy).toEqual(['Navy', 'L']);
    expect(skuFor(foundersTeeSkus, navy)).toMatchObject({ sku: 'TF-FTE-NVY-L', inStock: false });
  });

  it('finds no sku for a combination that does not exist', () => {
    expect(skuFor(foundersTeeSkus, ['Navy', 'S'])).toBeUndefined();
  });
});

describe('initialSku', () => {
  const product = productPage();

  it('takes the sku named by the URL, ignoring case', () => {
    expect(initialSku(product, 'tf-slr-308-20-fde')?.sku).toBe('TF-SLR-308-20-FDE');
  });

  it('falls back to the displayed sku for an unknown or missing parameter', () => {
    expect(initialSku({ ...product, displayedSku: 'TF-SLR-6CM-26-BLK' }, 'nope')?.sku).toBe('TF-SLR-6CM-26-BLK');
    expect(initialSku(product, null)?.sku).toBe('TF-SLR-65CM-24-BLK');
  });

  it('is undefined for a product without skus', () => {
    expect(initialSku({ skus: [], displayedSku: null }, null)).toBeUndefined();
  });
});
