import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DealerCard, DealerSearchCenter } from '../../api/types';
import { allDealers, phoenixDealers } from '../../test/fixtures/dealers';
import { renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';
import type { DealerMapOptions } from './leaflet-map';

/** The Leaflet engine stand-in: records what the page asks of the map, and lets a test act as the map. */
const engine = vi.hoisted(() => ({
  options: null as DealerMapOptions | null,
  shown: [] as { ids: string[]; center: DealerSearchCenter | null }[],
  selected: [] as (string | null)[],
}));

vi.mock('./leaflet-map', () => ({
  createDealerMap: (_element: HTMLElement, options: DealerMapOptions) => {
    engine.options = options;
    return {
      show: (dealers: readonly DealerCard[], center: DealerSearchCenter | null) => {
        engine.shown.push({ ids: dealers.map((dealer) => dealer.id), center });
      },
      select: (id: string | null) => {
        engine.selected.push(id);
      },
      destroy: () => undefined,
    };
  },
}));

let searches: string[];

// the route module and its imports compile once, before the timed tests (the cores are shared)
beforeAll(async () => {
  await import('../../app/routes/dealer-locator');
  await import('./dealer-map');
}, 30_000);

beforeEach(() => {
  engine.options = null;
  engine.shown = [];
  engine.selected = [];
  searches = [];
  server.use(
    http.get('/api/dealers', ({ request }) => {
      const url = new URL(request.url);
      searches.push(url.search);
      const zip = url.searchParams.get('zip');
      if (!zip) return HttpResponse.json(allDealers);
      if (zip === '85004') return HttpResponse.json(phoenixDealers);
      return problem(404, { title: 'Not Found', detail: 'Geocoding request failed', code: 'not_found' });
    }),
  );
});

function list() {
  return screen.getByRole('list', { name: 'Dealer' });
}

describe('dealer locator', { timeout: 15_000 }, () => {
  it('lists every dealer with a place, with tel: links, and puts them on the map centred by default', async () => {
    renderRoute('/dealer-locator');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Dealer Locator' }, { timeout: 5000 }),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(within(list()).getAllByRole('listitem')).toHaveLength(3);
    });
    expect(within(list()).queryByText('Pending Listing Dealer')).not.toBeInTheDocument();
    expect(within(list()).getByRole('link', { name: '(520) 555-0101' })).toHaveAttribute('href', 'tel:5205550101');
    expect(searches).toEqual(['']);
    // the page's metaData (from the dealer list) is its title, description and social tags
    await waitFor(() => {
      expect(document.title).toBe('Dealer Locator | Talonforge Arms');
    });
    for (const selector of [
      'meta[name="description"]',
      'meta[property="og:description"]',
      'meta[name="twitter:description"]',
    ]) {
      expect(document.head.querySelector(selector)).toHaveAttribute(
        'content',
        'Find a Talonforge Arms dealer near you.',
      );
    }
    expect(document.head.querySelector('meta[property="og:title"]')).toHaveAttribute(
      'content',
      'Dealer Locator | Talonforge Arms',
    );

    await waitFor(() => {
      expect(engine.shown.at(-1)).toEqual({
        ids: ['Saguaro Sporting Arms', 'Old Pueblo Outfitters', 'Front Range Firearms'],
        center: null,
      });
    });
    expect(screen.getByRole('link', { name: 'Become a Dealer' })).toHaveAttribute('href', '/dealer-registration');
    expect(screen.getByText('Are you a licensed dealer? Apply to carry our products.')).toBeInTheDocument();
  });

  it('searches by zip and radius: nearest first with distances, the map centred on the zip', async () => {
    const user = userEvent.setup({ delay: null });
    const { router } = renderRoute('/dealer-locator');
    await waitFor(() => {
      expect(within(list()).getAllByRole('listitem')).toHaveLength(3);
    });
    await user.type(screen.getByLabelText('Zip code'), '85004');
    await user.selectOptions(screen.getByLabelText('Radius'), '150');
    await user.click(
      within(screen.getByRole('search', { name: 'Find a dealer' })).getByRole('button', { name: 'Search' }),
    );

    await waitFor(() => {
      expect(within(list()).getAllByRole('listitem')).toHaveLength(2);
    });
    expect(router.location.search).toBe('?zip=85004&radius=150');
    expect(searches.at(-1)).toBe('?zip=85004&radius=150');
    expect(
      within(list())
        .getAllByRole('button')
        .map((button) => button.textContent),
    ).toEqual(['Saguaro Sporting Arms', 'Old Pueblo Outfitters']);
    expect(within(list()).getByText('106.1 miles')).toBeInTheDocument();
    await waitFor(() => {
      expect(engine.shown.at(-1)?.center).toEqual({ lat: 33.45, lng: -112.07, zip: '85004' });
    });
  });

  it('keeps list and map in sync: a list entry opens its info window, a marker selects its entry, closing clears it', async () => {
    const user = userEvent.setup({ delay: null });
    renderRoute('/dealer-locator');
    const entry = await screen.findByRole('button', { name: 'Old Pueblo Outfitters' });
    await waitFor(() => {
      expect(engine.options).not.toBeNull();
    });

    await user.click(entry);
    expect(entry).toHaveAttribute('aria-pressed', 'true');
    expect(engine.selected.at(-1)).toBe('Old Pueblo Outfitters');

    act(() => {
      engine.options?.onSelect('Front Range Firearms');
    });
    expect(screen.getByRole('button', { name: 'Front Range Firearms' })).toHaveAttribute('aria-pressed', 'true');
    expect(entry).toHaveAttribute('aria-pressed', 'false');

    act(() => {
      engine.options?.onClose();
    });
    expect(screen.getByRole('button', { name: 'Front Range Firearms' })).toHaveAttribute('aria-pressed', 'false');
    expect(engine.selected.at(-1)).toBeNull();
  });

  it("shows 'Geocoding request failed' for an unknown zip, and no dealers", async () => {
    renderRoute('/dealer-locator?zip=00000&radius=50');
    expect(await screen.findByText('Geocoding request failed')).toBeInTheDocument();
    expect(within(list()).queryAllByRole('listitem')).toHaveLength(0);
  });

  it("shows the 'Error: AuthFailure' panel when the tile provider refuses the key", async () => {
    renderRoute('/dealer-locator');
    await waitFor(() => {
      expect(engine.options).not.toBeNull();
    });
    act(() => {
      engine.options?.onAuthFailure();
    });
    const panel = within(screen.getByRole('main')).getByRole('alert');
    expect(within(panel).getByRole('heading', { name: 'Error: AuthFailure' })).toBeInTheDocument();
    expect(panel).toHaveTextContent(/API key/);
    // the list stays
    expect(within(list()).getAllByRole('listitem')).toHaveLength(3);
  });
});
