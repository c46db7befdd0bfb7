import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { defined } from '../../../test/defined';
import { cardBrand } from '../card';
import { CardBrands } from './card-brands';

describe('card brand logos (spec: card form)', () => {
  it('shows a logo per accepted brand, drawn inline: no image request, no third party', () => {
    const { container } = render(<CardBrands brand={null} />);
    const list = screen.getByRole('list', { name: 'Accepted cards' });
    expect(
      within(list)
        .getAllByRole('img')
        .map((logo) => logo.getAttribute('aria-label')),
    ).toEqual(['Visa', 'Mastercard', 'American Express', 'Discover']);
    expect(container.querySelectorAll('img, image, use, [href], [src]')).toHaveLength(0);
    expect(
      within(list)
        .getAllByRole('listitem')
        .filter((item) => item.hasAttribute('aria-current')),
    ).toHaveLength(0);
  });

  it.each([
    ['4111 1111 1111 1111', 'Visa'],
    ['5555 5555 5555 4444', 'Mastercard'],
    ['3782 822463 10005', 'American Express'],
    ['6011 1111 1111 1117', 'Discover'],
  ] as const)('highlights the brand %s shows (%s) and announces it', (number, name) => {
    render(<CardBrands brand={cardBrand(number)} />);
    const list = screen.getByRole('list', { name: 'Accepted cards' });
    const current = within(list)
      .getAllByRole('listitem')
      .filter((item) => item.getAttribute('aria-current') === 'true');
    expect(current).toHaveLength(1);
    expect(within(defined(current[0], name)).getByRole('img', { name })).toBeInTheDocument();
    expect(current[0]).toHaveClass('card-brands__brand--active');
    const announcement = screen.getByText(`${name} card detected`);
    expect(announcement).toHaveAttribute('aria-live', 'polite');
  });
});
