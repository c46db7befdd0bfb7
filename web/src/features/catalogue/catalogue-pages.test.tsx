import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeAll, describe, expect, it } from 'vitest';
import { installFakeCaptcha } from '../../test/captcha';
import { collection, productCard, productPage, riflesCollection, sku } from '../../test/fixtures/catalogue';
import { renderRoute } from '../../test/render';
import { NOT_YET_PRICED } from './components/product-page';
import { problem, server } from '../../test/server';

// the lazily loaded route modules, compiled once before the tests (not inside the first one's time)
beforeAll(async () => {
  await Promise.all([
    import('../../app/routes/product'),
    import('../../app/routes/collection'),
    import('../../app/routes/search'),
  ]);
}, 60_000);

const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });
const notFound = () => problem(404, { title: 'Not Found', detail: 'No such thing', code: 'not_found' });

// full pages in jsdom on shared CI cores: more time than the 5 s default
describe('product page', { timeout: 20_000 }, () => {
  it('cascades the selects, follows the sku with price and stock, and keeps it in ?sku=', async () => {
    server.use(http.get('/api/products/:title', () => HttpResponse.json(productPage())));
    const user = userEvent.setup();
    const { router } = renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const price = screen.getByRole('group', { name: 'Price' });
    expect(price).toHaveTextContent('$2,199.00');

    await user.selectOptions(screen.getByRole('combobox', { name: 'Caliber' }), '.308 Win');
    await waitFor(() => {
      expect(screen.getByRole('combobox', { name: 'Caliber' })).toHaveValue('.308 Win');
    });
    expect(screen.getByRole('combobox', { name: 'Barrel Length' })).toHaveValue('24"');
    expect(router.location.search).toBe('?sku=TF-SLR-308-24-BLK');
    expect(
      within(screen.getByRole('combobox', { name: 'Color' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Black']);
    expect(price).toHaveTextContent('$2,199.00');

    // under .308 Win / 24" there is no Sniper Grey sku: its swatch is disabled
    expect(screen.getByRole('button', { name: 'Sniper Grey' })).toBeDisabled();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Caliber' }), '6.5 Creedmoor');
    await waitFor(() => {
      expect(screen.getByRole('combobox', { name: 'Caliber' })).toHaveValue('6.5 Creedmoor');
    });
    await user.click(await screen.findByRole('button', { name: 'Sniper Grey (Out of stock)' }));
    await waitFor(() => {
      expect(screen.getByRole('combobox', { name: 'Color' })).toHaveValue('Sniper Grey');
    });
    expect(screen.getByRole('button', { name: 'Sniper Grey (Out of stock)' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.queryByRole('button', { name: 'Add to Cart' })).not.toBeInTheDocument();
    expect(screen.getByRole('form', { name: /Out of stock/ })).toBeInTheDocument();
  });

  it('sends the stock alert for the sku and shows the confirmation; a failure shows the message and resets the captcha', async () => {
    const { resets } = installFakeCaptcha();
    const bodies: unknown[] = [];
    let fail = true;
    server.use(
      http.get('/api/products/:title', () => HttpResponse.json(productPage())),
      http.post('/api/stock-alerts', async ({ request }) => {
        bodies.push(await request.json());
        if (fail)
          return problem(422, {
            title: 'Unprocessable',
            detail: 'Captcha verification failed',
            code: 'validation_failed',
          });
        return HttpResponse.json({ message: 'You will be notified when Summit LR is back in stock' });
      }),
    );
    const user = userEvent.setup();
    renderRoute('/product/summit%20lr?sku=TF-SLR-65CM-24-GRY');
    const form = await screen.findByRole('form', { name: /Out of stock/ });
    await user.type(within(form).getByRole('textbox', { name: 'Email' }), 'shopper@example.test');
    await user.click(await within(form).findByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Notify Me' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Captcha verification failed');
    expect(resets[0]).toBe(1);

    fail = false;
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Notify Me' }));
    expect(await within(screen.getByRole('main')).findByRole('status')).toHaveTextContent(
      'You will be notified when Summit LR is back in stock',
    );
    expect(bodies.at(-1)).toEqual({
      email: 'shopper@example.test',
      captcha: 'test-captcha-token',
      productId: 'TF-SLR-65CM-24-GRY',
      productName: 'Summit LR',
      options: [
        { label: 'Caliber', value: '6.5 Creedmoor' },
        { label: 'Barrel Length', value: '24"' },
        { label: 'Color', value: 'Sniper Grey' },
      ],
    });
  });

  it("reads 'Coming Soon' for an in-stock sku priced 0, with a disabled Add to Cart that says why and no notify form", async () => {
    const copperhead = productPage({
      title: 'Copperhead Limited',
      skus: [sku('TF-CPH', 0, 0, 1, [])],
      displayType: 'product-short',
    });
    server.use(http.get('/api/products/:title', () => HttpResponse.json(copperhead)));
    renderRoute('/product/copperhead%20limited');
    await h1('Copperhead Limited');
    expect(screen.getByRole('group', { name: 'Price' })).toHaveTextContent('Coming Soon');
    const add = screen.getByRole('button', { name: 'Add to Cart' });
    expect(add).toBeDisabled();
    expect(add).toHaveAccessibleDescription(NOT_YET_PRICED);
    expect(screen.queryByRole('form', { name: /Out of stock/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
  });

  it("reads 'Coming Soon' for an out-of-stock sku priced 0: no Add to Cart, the notify form", async () => {
    const copperhead = productPage({
      title: 'Copperhead Limited',
      skus: [sku('TF-CPH', 0, 0, 0, [])],
      displayType: 'product-short',
    });
    server.use(http.get('/api/products/:title', () => HttpResponse.json(copperhead)));
    renderRoute('/product/copperhead%20limited');
    await h1('Copperhead Limited');
    expect(screen.getByRole('group', { name: 'Price' })).toHaveTextContent('Coming Soon');
    expect(screen.queryByRole('button', { name: 'Add to Cart' })).not.toBeInTheDocument();
    expect(await screen.findByRole('form', { name: /Out of stock/ })).toBeInTheDocument();
  });

  it('shows the not-found page for a product that does not exist', async () => {
    server.use(http.get('/api/products/:title', notFound));
    renderRoute('/product/nope');
    expect(await h1('Page not found')).toBeInTheDocument();
  });

  it('shows the empty product, not a crash, when the load fails', async () => {
    server.use(http.get('/api/products/:title', () => HttpResponse.json({ message: 'boom' }, { status: 500 })));
    renderRoute('/product/summit%20lr');
    expect(await h1('summit lr')).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Price' })).not.toBeInTheDocument();
  });
});

describe('collection page', { timeout: 20_000 }, () => {
  it('tabbed grid: the tab follows ?activeFilter= and an empty tab says so', async () => {
    server.use(http.get('/api/collections/:title', () => HttpResponse.json(riflesCollection)));
    const user = userEvent.setup();
    const { router } = renderRoute('/collection/rifles?activeFilter=semi-auto');
    await h1('Rifles');
    expect(screen.getByRole('tab', { name: 'Semi-Auto' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getAllByRole('article').map((card) => within(card).getByRole('heading').textContent)).toEqual([
      'Vanguard 15',
    ]);

    await user.click(screen.getByRole('tab', { name: 'Lever Action' }));
    expect(await screen.findByText('No items found')).toBeInTheDocument();
    expect(router.location.search).toBe('?activeFilter=Lever+Action');

    await user.click(screen.getByRole('tab', { name: 'All' }));
    await waitFor(() => {
      expect(screen.getAllByRole('article')).toHaveLength(3);
    });
    expect(router.location.search).toBe('');
  });

  it("cards layout: promo cards and '(FFL Required to ship)'; the quick '+' only for an in-stock product without variants", async () => {
    const pistols = collection({
      title: 'Pistols',
      displayType: 'collection-cards',
      filterCategories: [],
      promoCards: [
        {
          title: 'Carry Season',
          subtitle: 'Compact pistols',
          url: '/collection/pistols',
          image: { src: 'https://media.example.test/p.svg', alt: '' },
          buttonLabel: 'Shop Now',
        },
      ],
      products: [
        productCard('Kestrel 380', { fflItem: true, skus: [sku('TF-K380', 449, 0, 25, [])] }),
        productCard('Falcon 10mm', { fflItem: true, skus: [sku('TF-F10-BLK', 799, 0, 0, [])] }),
      ],
    });
    server.use(http.get('/api/collections/:title', () => HttpResponse.json(pistols)));
    renderRoute('/collection/pistols');
    await h1('Pistols');
    expect(screen.getByRole('link', { name: 'Shop Now: Carry Season' })).toHaveAttribute('href', '/collection/pistols');
    const kestrel = screen.getByRole('article', { name: 'Kestrel 380' });
    expect(kestrel).toHaveTextContent('(FFL Required to ship)');
    expect(within(kestrel).getByRole('button', { name: 'Add Kestrel 380 to cart' })).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Falcon 10mm' })).queryByRole('button')).not.toBeInTheDocument();
  });

  it('shows the not-found page for a collection that does not exist', async () => {
    server.use(http.get('/api/collections/:title', notFound));
    renderRoute('/collection/nope');
    expect(await h1('Page not found')).toBeInTheDocument();
  });
});

describe('search results', () => {
  it('titles the page \'Results for "{query}"\' and shows the cards', async () => {
    server.use(
      http.get('/api/search', ({ request }) =>
        HttpResponse.json({ query: new URL(request.url).searchParams.get('q'), results: [productCard('Summit LR')] }),
      ),
    );
    renderRoute('/search/summit');
    expect(await h1('Results for "summit"')).toBeInTheDocument();
    expect(await screen.findByRole('article', { name: 'Summit LR' })).toBeInTheDocument();
  });

  it("a search the BFF cannot run keeps the title and says 'Search is unavailable'", async () => {
    server.use(
      http.get('/api/search', () =>
        problem(503, {
          title: 'Service Unavailable',
          detail: 'Search is unavailable; please try again in a moment.',
          code: 'search_unavailable',
        }),
      ),
    );
    renderRoute('/search/summit');
    expect(await h1('Results for "summit"')).toBeInTheDocument();
    const main = screen.getByRole('main');
    expect(await within(main).findByRole('alert')).toHaveTextContent('Search is unavailable');
    expect(main).not.toHaveTextContent('No products match');
    expect(within(main).queryByText('0 products')).not.toBeInTheDocument();
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
  });

  it('too many searches from one connection says so', async () => {
    server.use(
      http.get('/api/search', () =>
        problem(429, { title: 'Too Many Requests', detail: 'Too many requests; retry in 30 s.', code: 'rate_limited' }),
      ),
    );
    renderRoute('/search/summit');
    expect(await h1('Results for "summit"')).toBeInTheDocument();
    expect(await within(screen.getByRole('main')).findByRole('alert')).toHaveTextContent('Too many searches');
  });

  it('a search with no match still says no products match', async () => {
    server.use(http.get('/api/search', () => HttpResponse.json({ query: 'zzz', results: [] })));
    renderRoute('/search/zzz');
    expect(await h1('Results for "zzz"')).toBeInTheDocument();
    expect(await within(screen.getByRole('main')).findByRole('status')).toHaveTextContent('0 products');
    expect(screen.getByText(/No products match your search/)).toBeInTheDocument();
  });
});
