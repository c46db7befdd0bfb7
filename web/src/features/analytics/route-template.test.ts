import { describe, expect, it } from 'vitest';
import { routeTemplate } from './route-template';

describe('routeTemplate', () => {
  it('names each parameter instead of its value', () => {
    expect(routeTemplate('/product/summit%20lr', { title: 'summit lr' })).toBe('/product/:title');
    expect(routeTemplate('/profile/orders/100042', { id: '100042' })).toBe('/profile/orders/:id');
    expect(routeTemplate('/Newsletter/verify/abc.def', { token: 'abc.def' })).toBe('/Newsletter/verify/:token');
  });

  it('keeps fixed paths, the home page and ignores a trailing slash', () => {
    expect(routeTemplate('/', {})).toBe('/');
    expect(routeTemplate('/checkout/', {})).toBe('/checkout');
    expect(routeTemplate('/profile/address-book', {})).toBe('/profile/address-book');
  });

  it('survives a malformed escape', () => {
    expect(routeTemplate('/search/%E0%A4%A', { query: 'x' })).toBe('/search/%E0%A4%A');
  });
});
