import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { parseRadius, sanitizeZip, searchFromParams, searchToParams } from './locator-search';
import { DealerSearchForm, ZipInput } from './search-form';

describe('sanitizeZip', () => {
  it('keeps digits only, at most five', () => {
    expect(sanitizeZip('80202')).toBe('80202');
    expect(sanitizeZip('8a0-2 02')).toBe('80202');
    expect(sanitizeZip('802021234')).toBe('80202');
    expect(sanitizeZip('abc')).toBe('');
  });
});

describe('the search in the URL', () => {
  it('reads a five-digit zip and an offered radius, else none and 50', () => {
    expect(searchFromParams(new URLSearchParams('zip=80202&radius=150'))).toEqual({ zip: '80202', radius: 150 });
    expect(searchFromParams(new URLSearchParams('zip=8020&radius=75'))).toEqual({ zip: '', radius: 50 });
    expect(searchFromParams(new URLSearchParams(''))).toEqual({ zip: '', radius: 50 });
    expect(parseRadius('250')).toBe(250);
    expect(parseRadius('300')).toBe(50);
    expect(searchToParams({ zip: '', radius: 100 }).toString()).toBe('');
    expect(searchToParams({ zip: '80202', radius: 100 }).toString()).toBe('zip=80202&radius=100');
  });
});

describe('ZipInput', () => {
  it('accepts digits only, five at most, typed or pasted', async () => {
    const user = userEvent.setup({ delay: null });
    const changes: string[] = [];
    render(
      <>
        <label htmlFor="zip">Zip</label>
        <ZipInput
          id="zip"
          onChange={(event) => {
            changes.push(event.target.value);
          }}
        />
      </>,
    );
    const input = screen.getByLabelText('Zip');
    await user.type(input, '8a0b2-0 2');
    expect(input).toHaveValue('80202');
    await user.type(input, '9');
    expect(input).toHaveValue('80202');
    expect(changes.every((value) => /^\d{0,5}$/.test(value))).toBe(true);

    await user.clear(input);
    await user.click(input);
    await user.paste('ZIP: 30303-1234');
    expect(input).toHaveValue('30303');
    expect(input).toHaveAttribute('inputmode', 'numeric');
  });
});

describe('DealerSearchForm', () => {
  it('offers 50 to 250 miles with 50 by default and submits the zip and radius', async () => {
    const user = userEvent.setup({ delay: null });
    const onSearch = vi.fn();
    render(<DealerSearchForm initial={{ zip: '', radius: 50 }} onSearch={onSearch} />);
    const radius = screen.getByLabelText('Radius');
    expect(radius).toHaveValue('50');
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
      '50 miles',
      '100 miles',
      '150 miles',
      '200 miles',
      '250 miles',
    ]);

    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(onSearch).toHaveBeenLastCalledWith({ zip: '', radius: 50 });

    await user.type(screen.getByLabelText('Zip code'), '802');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('Zip code must be 5 digits')).toBeInTheDocument();
    expect(onSearch).toHaveBeenCalledTimes(1);

    await user.type(screen.getByLabelText('Zip code'), '02');
    await user.selectOptions(radius, '200');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(onSearch).toHaveBeenLastCalledWith({ zip: '80202', radius: 200 });
  });
});
