import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { productCard } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { problem, server } from '../../../test/server';
import { defined } from '../../../test/defined';
import { recordFetches } from '../../../test/fetches';
import { advance, installFakeTimers } from '../../../test/timers';
import { SUGGESTION_DEBOUNCE_MS, TOGGLE_DEBOUNCE_MS, type SearchResponse, type SearchResult } from '../api';
// loaded up front, so the lazily loaded overlay and pages are already in the module cache
import '../../../app/routes/product';
import '../../../app/routes/search';
import './search-overlay';

const results: SearchResult[] = [
  productCard({ title: 'Summit LR', subtitle: 'Bolt action', imgUrl: { src: '/img/slr.svg', alt: 'Summit LR' } }),
  productCard({ title: 'Summit Hunter', subtitle: 'Bolt action', imgUrl: { src: '/img/sh.svg', alt: '' } }),
  productCard({ title: 'Summit Tactical', subtitle: '', imgUrl: { src: '', alt: '' } }),
];

let fetched: URL[];

/** The queries the overlay has asked the search API for so far, as it asked them (at the fetch). */
function queries() {
  return fetched.filter((url) => url.pathname === '/api/search').map((url) => url.searchParams.get('q') ?? '');
}

beforeEach(() => {
  fetched = recordFetches();
  server.use(
    http.get('/api/search', ({ request }) => {
      const q = new URL(request.url).searchParams.get('q') ?? '';
      return HttpResponse.json({ query: q.trim().toLowerCase(), results } satisfies SearchResponse);
    }),
  );
});

afterEach(() => {
  vi.useRealTimers();
});

async function setup(path = '/') {
  const rendered = renderRoute(path);
  await screen.findByRole('heading', { name: 'Built for the Long Range' });
  installFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const user = userEvent.setup({ delay: null });
  const toggle = within(screen.getByRole('banner')).getByRole('button', { name: 'Search' });
  return { ...rendered, user, toggle };
}

async function open(user: ReturnType<typeof userEvent.setup>, toggle: HTMLElement) {
  await user.click(toggle);
  await advance(0);
  return screen.getByRole('combobox', { name: 'Search products' });
}

describe('search overlay', () => {
  it('opens from the search icon with the focus in the search box', async () => {
    const { user, toggle } = await setup();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');

    const box = await open(user, toggle);

    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(box).toHaveFocus();
    expect(screen.getByRole('search', { name: 'Site search' })).toBeInTheDocument();
  });

  it('debounces the toggle for 1 s on the leading edge', async () => {
    const { user, toggle } = await setup();

    await user.click(toggle);
    await user.click(toggle); // a double click must not close it again at once
    await advance(0);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');

    await advance(TOGGLE_DEBOUNCE_MS - 1);
    await user.click(toggle); // still within the quiet period (which this click restarts)
    expect(toggle).toHaveAttribute('aria-expanded', 'true');

    await advance(TOGGLE_DEBOUNCE_MS);
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
  });

  it('asks for no suggestions for 2 characters or fewer', async () => {
    const { user, toggle } = await setup();
    const box = await open(user, toggle);

    await user.type(box, 'sc');
    await advance(SUGGESTION_DEBOUNCE_MS * 4);

    expect(queries()).toEqual([]);
    expect(screen.queryByRole('option')).not.toBeInTheDocument();
    expect(box).toHaveAttribute('aria-expanded', 'false');
  });

  it('asks once, 500 ms after typing stops, for more than 2 characters', async () => {
    const { user, toggle } = await setup();
    const box = await open(user, toggle);

    await user.type(box, 'Sum');
    await advance(SUGGESTION_DEBOUNCE_MS - 1);
    expect(queries()).toEqual([]);

    await user.type(box, 'm');
    await advance(SUGGESTION_DEBOUNCE_MS - 1);
    expect(queries()).toEqual([]); // the pause restarted with the 4th character

    await advance(1);
    expect(queries()).toEqual(['summ']);
    const listbox = await screen.findByRole('listbox', { name: 'Search suggestions' });
    expect(
      within(listbox)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Summit LRBolt action', 'Summit HunterBolt action', 'Summit Tactical']);
    expect(box).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('3 suggestions')).toBeInTheDocument();
  });

  it("says 'Search is unavailable' when the BFF cannot run the search", async () => {
    server.use(
      http.get('/api/search', () =>
        problem(503, { title: 'Service Unavailable', detail: 'Search is unavailable', code: 'search_unavailable' }),
      ),
    );
    const { user, toggle } = await setup();
    const box = await open(user, toggle);
    await user.type(box, 'summit');
    await advance(SUGGESTION_DEBOUNCE_MS);

    expect(await screen.findByText(/^Search is unavailable\./)).toHaveAttribute('role', 'status');
    expect(screen.queryByText('No suggestions')).not.toBeInTheDocument();
    expect(box).toHaveAttribute('aria-expanded', 'false');
  });

  it('clears the suggestions at once when the box is emptied (and below 3 characters)', async () => {
    const { user, toggle } = await setup();
    const box = await open(user, toggle);
    await user.type(box, 'summit');
    await advance(SUGGESTION_DEBOUNCE_MS);
    expect(await screen.findAllByRole('option')).toHaveLength(3);

    await user.type(box, '{Backspace}{Backspace}{Backspace}{Backspace}');
    expect(screen.queryByRole('option')).not.toBeInTheDocument();

    await user.clear(box);
    expect(screen.queryByRole('option')).not.toBeInTheDocument();
    await advance(SUGGESTION_DEBOUNCE_MS);
    expect(screen.queryByRole('option')).not.toBeInTheDocument();
    expect(queries()).toEqual(['summit']);
  });

  it('moves through the suggestions with the arrow keys (wrapping) and opens the chosen one with Enter', async () => {
    const { user, toggle, router } = await setup();
    const box = await open(user, toggle);
    await user.type(box, 'summit');
    await advance(SUGGESTION_DEBOUNCE_MS);
    const options = await screen.findAllByRole('option');

    await user.keyboard('{ArrowDown}');
    expect(options[0]).toHaveAttribute('aria-selected', 'true');
    expect(box).toHaveAttribute('aria-activedescendant', options[0]?.id);

    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(options[0]).toHaveAttribute('aria-selected', 'true'); // wrapped around

    await user.keyboard('{ArrowUp}');
    expect(options[2]).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowUp}');
    expect(options[1]).toHaveAttribute('aria-selected', 'true');
    expect(box).toHaveFocus();

    await user.keyboard('{Enter}');

    await waitFor(() => {
      expect(router.location.pathname).toBe('/product/summit%20hunter');
    });
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
  });

  it('closes on choosing a suggestion with the pointer', async () => {
    const { user, toggle, router } = await setup();
    const box = await open(user, toggle);
    await user.type(box, 'summit');
    await advance(SUGGESTION_DEBOUNCE_MS);

    await user.click(await screen.findByRole('option', { name: /Summit Tactical/ }));
    await waitFor(() => {
      expect(router.location.pathname).toBe('/product/summit%20tactical');
    });
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
  });

  it('submits to /search/{query}, URL-encoded and lower-cased, and closes', async () => {
    const { user, toggle, router } = await setup();
    const box = await open(user, toggle);

    await user.type(box, '  Long Range/22 {Enter}');

    await waitFor(() => {
      expect(router.location.pathname).toBe('/search/long%20range%2F22');
    });
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
  });

  it('just closes on submitting 1 character or nothing', async () => {
    const { user, toggle, router } = await setup();
    let box = await open(user, toggle);
    await user.type(box, 'a{Enter}');
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
    expect(toggle).toHaveFocus();

    await advance(TOGGLE_DEBOUNCE_MS);
    box = await open(user, toggle);
    await user.type(box, '{Enter}');
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
  });

  it('closes with Escape and gives the focus back to the search icon', async () => {
    const { user, toggle } = await setup();
    const box = await open(user, toggle);
    await user.type(box, 'summit');
    await advance(SUGGESTION_DEBOUNCE_MS);
    await screen.findAllByRole('option');
    await user.keyboard('{ArrowDown}');

    await user.keyboard('{Escape}');

    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveFocus();
  });

  it('closes on a click on the dimmed page around it', async () => {
    const { user, toggle } = await setup();
    await open(user, toggle);

    // the dimmed page is decoration, without a role: found by its class
    await user.click(defined(document.querySelector<HTMLElement>('.search-overlay__backdrop')));

    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
  });

  it('shows no suggestions, silently, when the search fails', async () => {
    server.use(http.get('/api/search', () => new HttpResponse(null, { status: 500 })));
    const { user, toggle } = await setup();
    const box = await open(user, toggle);
    await user.type(box, 'summit');
    await advance(SUGGESTION_DEBOUNCE_MS);
    expect(screen.queryByRole('option')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeEmptyDOMElement();
  });
});
