import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeAll, describe, expect, it } from 'vitest';
import { collection, productCard, productPage, summitLrSkus } from '../../test/fixtures/catalogue';
import { renderRoute } from '../../test/render';
import { server } from '../../test/server';

// the lazily loaded route modules, compiled once before the tests (not inside the first one's time)
beforeAll(async () => {
  await Promise.all([
    import('../../app/routes/product'),
    import('../../app/routes/collection'),
    import('../../app/routes/search'),
  ]);
}, 60_000);

/** Summit LR's card: its displayed sku is the lowest discounted one, 6mm Creedmoor 26" Black at 15% off. */
const DISPLAYED = 'TF-SLR-6CM-26-BLK';
const summitCard = productCard('Summit LR', { skus: summitLrSkus, displayedSku: DISPLAYED, fflItem: true });
const rifles = collection({
  title: 'Rifles',
  displayType: 'collection-simple-grid',
  filterCategories: [],
  products: [summitCard, productCard('Vanguard 15')],
});

function cardLink(name: string) {
  return within(screen.getByRole('article', { name })).getByRole('link', { name });
}

describe('a card opens the product on the sku whose price it shows (issue 47)', { timeout: 20_000 }, () => {
  it("on a collection: Summit LR's card links with ?sku= and opens on the card's price", async () => {
    server.use(
      http.get('/api/collections/:title', () => HttpResponse.json(rifles)),
      http.get('/api/products/:title', () => HttpResponse.json(productPage())),
    );
    const user = userEvent.setup();
    const { router } = renderRoute('/collection/rifles');
    await screen.findByRole('heading', { level: 1, name: 'Rifles' });
    const cardPrice = within(screen.getByRole('article', { name: 'Summit LR' })).getByText('$1,954.15');
    expect(cardPrice).toBeInTheDocument();
    expect(cardLink('Summit LR')).toHaveAttribute('href', `/product/summit%20lr?sku=${DISPLAYED}`);

    await user.click(cardLink('Summit LR'));
    await screen.findByRole('heading', { level: 1, name: 'Summit LR' });
    expect(router.location.pathname).toBe('/product/summit%20lr');
    const price = screen.getByRole('group', { name: 'Price' });
    await waitFor(() => {
      expect(price).toHaveTextContent('$1,954.15');
    });
    expect(price).toHaveTextContent('(15% off)');
    expect(screen.getByRole('combobox', { name: 'Caliber' })).toHaveValue('6mm Creedmoor');
    expect(screen.getByRole('combobox', { name: 'Barrel Length' })).toHaveValue('26"');
  });

  it('in search results', async () => {
    server.use(
      http.get('/api/search', ({ request }) =>
        HttpResponse.json({ query: new URL(request.url).searchParams.get('q'), results: [summitCard] }),
      ),
    );
    renderRoute('/search/summit');
    await screen.findByRole('article', { name: 'Summit LR' });
    expect(cardLink('Summit LR')).toHaveAttribute('href', `/product/summit%20lr?sku=${DISPLAYED}`);
  });

  it('in related products', async () => {
    server.use(
      http.get('/api/products/:title', () =>
        HttpResponse.json(productPage({ title: 'Ironclad Rail', skus: [], relatedProducts: [summitCard] })),
      ),
    );
    renderRoute('/product/ironclad%20rail');
    await screen.findByRole('heading', { level: 1, name: 'Ironclad Rail' });
    expect(cardLink('Summit LR')).toHaveAttribute('href', `/product/summit%20lr?sku=${DISPLAYED}`);
  });
});
