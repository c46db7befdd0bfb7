import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeAll, describe, expect, it } from 'vitest';
import { productPage, riflesCollection } from '../../test/fixtures/catalogue';
import { renderRoute } from '../../test/render';
import { server } from '../../test/server';

/**
 * The first screen of the shopping pages: no `style` attribute anywhere (a CSP without
 * 'unsafe-inline' for styles drops them, server-rendered ones included), and the LCP image
 * fetched first while images further down load lazily.
 */

// the lazily loaded route modules, compiled once before the tests
beforeAll(async () => {
  await Promise.all([import('./home'), import('./product'), import('./collection')]);
}, 60_000);

const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });
const styled = () => [...document.querySelectorAll('[style]')].map((element) => element.outerHTML.slice(0, 120));

describe('first screen', { timeout: 20_000 }, () => {
  it('home: the first slide is fetched first, the others and the ribbon wait; no style attribute', async () => {
    renderRoute('/');
    await screen.findByRole('heading', { name: 'Built for the Long Range' });
    const slides = [...document.querySelectorAll('.carousel__image')];
    expect(slides.map((image) => [image.getAttribute('fetchpriority'), image.getAttribute('loading')])).toEqual([
      ['high', null],
      ['low', null],
    ]);
    const ribbon = [...document.querySelectorAll('.ribbon__item img')];
    expect(ribbon).toHaveLength(2);
    for (const image of ribbon) {
      expect(image).toHaveAttribute('loading', 'lazy');
      expect(image).toHaveAttribute('decoding', 'async');
    }
    expect(screen.getByRole('link', { name: 'Optics' }).closest('li')).toHaveClass('ribbon__item');
    expect(styled()).toEqual([]);
  });

  it('product: swatches are SVG fills, the main image is fetched first; no style attribute', async () => {
    server.use(http.get('/api/products/:title', () => HttpResponse.json(productPage())));
    renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const swatch = screen.getByRole('button', { name: 'Flat Dark Earth' });
    expect(swatch.querySelector('svg[aria-hidden="true"] rect')).toHaveAttribute('fill', '#b59a6d');
    const first = document.querySelector('.product-images__open img');
    expect(first).toHaveAttribute('fetchpriority', 'high');
    expect(first).not.toHaveAttribute('loading');
    expect(styled()).toEqual([]);
  });

  it('collection: the banner background is an <img>, the first cards load first; no style attribute', async () => {
    server.use(http.get('/api/collections/:title', () => HttpResponse.json(riflesCollection)));
    renderRoute('/collection/rifles');
    await h1(riflesCollection.title);
    const banner = document.querySelector('.collection-page__banner');
    const backdrop = banner?.querySelector('img.backdrop-image');
    expect(riflesCollection.backgroundImage.src).toMatch(/^https:/);
    expect(backdrop).toHaveAttribute('src', riflesCollection.backgroundImage.src);
    expect(backdrop).toHaveAttribute('alt', '');
    const cards = [...document.querySelectorAll('.product-card__image img')];
    expect(cards[0]).toHaveAttribute('fetchpriority', 'high');
    expect(cards[0]).not.toHaveAttribute('loading');
    expect(styled()).toEqual([]);
  });
});
