import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { isColourSelect, type OptionSelect } from '../logic/options';
import { OptionSelects } from './option-selects';

function colourSelect(key: string): OptionSelect {
  return {
    key,
    label: 'Color',
    selected: 'Black',
    values: [
      { id: 1, label: 'Black', exists: true, available: true },
      { id: 2, label: 'Flat Dark Earth', exists: true, available: true },
    ],
  };
}

const colorOptions = [
  { title: 'Black', value: '#111111' },
  { title: 'Flat Dark Earth', value: '#8a7356' },
];

describe('colour swatches (spec: product page, colour swatches)', () => {
  it.each(['color', 'Color', 'colour', 'Colour', ' COLOR '])(
    'follow the variant type %j whatever its case or spelling',
    (key) => {
      render(<OptionSelects selects={[colourSelect(key)]} colorOptions={colorOptions} onChoose={() => undefined} />);
      const group = screen.getByRole('group', { name: 'Color swatches' });
      expect(within(group).getByRole('button', { name: 'Black' })).toHaveAttribute('aria-pressed', 'true');
      expect(within(group).getByRole('button', { name: 'Flat Dark Earth' })).toHaveAttribute('aria-pressed', 'false');
    },
  );

  it('are not shown beside another select', () => {
    render(
      <OptionSelects
        selects={[{ ...colourSelect('caliber'), label: 'Caliber' }]}
        colorOptions={colorOptions}
        onChoose={() => undefined}
      />,
    );
    expect(screen.queryByRole('group', { name: /swatches/ })).not.toBeInTheDocument();
  });

  it('recognise the colour select by its type title only', () => {
    expect(['color', 'Color', 'colour', 'COLOURS', ' Colors '].every(isColourSelect)).toBe(true);
    expect(['caliber', 'colorway', 'barrel-color', ''].some(isColourSelect)).toBe(false);
  });
});
