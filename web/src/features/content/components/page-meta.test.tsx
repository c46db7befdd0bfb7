import { waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithClient } from '../../../test/render';
import { RouteMetaContext } from '../../../lib/route-meta';
import { PageMeta } from './page-meta';

/** The head the BFF renders for the landing page (`bff/src/seo/head.rs`), tags marked `data-seo`. */
const SERVER_HEAD = [
  '<title data-seo>Summit LR | Talonforge Arms</title>',
  '<meta data-seo name="description" content="From the server">',
  '<link data-seo rel="canonical" href="https://shop.example/product/summit%20lr">',
  '<meta data-seo property="og:title" content="Summit LR | Talonforge Arms">',
  '<meta data-seo property="og:url" content="https://shop.example/product/summit%20lr">',
  '<meta data-seo property="og:type" content="product">',
  '<meta data-seo property="og:image" content="https://shop.example/media/summit.svg">',
  '<meta data-seo name="twitter:card" content="summary_large_image">',
  '<meta data-seo property="product:price:amount" content="2199.00">',
  '<script data-seo type="application/ld+json">{"@type":"Product"}</script>',
].join('');

function count(selector: string): number {
  return document.head.querySelectorAll(selector).length;
}

describe('PageMeta', () => {
  afterEach(() => {
    document.head.innerHTML = '';
    window.history.replaceState(null, '', '/');
  });

  it('takes over the server-rendered head of the landing page without duplicating a tag', async () => {
    document.head.innerHTML = SERVER_HEAD;
    renderWithClient(
      <PageMeta title="Summit LR" metaData={{ title: 'Summit LR | Talonforge Arms', description: 'Client' }} />,
    );
    await waitFor(() =>
      expect(document.head.querySelector('meta[name="description"]')).toHaveAttribute('content', 'Client'),
    );
    for (const selector of [
      'title',
      'meta[name="description"]',
      'link[rel="canonical"]',
      'meta[property="og:title"]',
      'meta[property="og:url"]',
      'meta[property="og:type"]',
      'meta[name="twitter:card"]',
    ]) {
      expect(count(selector), selector).toBe(1);
    }
    expect(document.title).toBe('Summit LR | Talonforge Arms');
    // what the server said about this very page stays
    expect(document.head.querySelector('meta[property="og:type"]')).toHaveAttribute('content', 'product');
    expect(count('script[type="application/ld+json"]')).toBe(1);
    expect(document.head.querySelector('link[rel="canonical"]')).toHaveAttribute(
      'href',
      'https://shop.example/product/summit%20lr',
    );
  });

  it('drops what the server said about the landing page once the shopper has moved on', async () => {
    document.head.innerHTML = SERVER_HEAD;
    window.history.pushState(null, '', '/about-us');
    renderWithClient(<PageMeta title="About Us" />);
    await waitFor(() => expect(count('script[type="application/ld+json"]')).toBe(0));
    expect(count('meta[property^="product:"]')).toBe(0);
    expect(count('meta[property="og:image"]')).toBe(0);
    expect(document.head.querySelector('meta[property="og:type"]')).toHaveAttribute('content', 'website');
    expect(count('link[rel="canonical"]')).toBe(1);
    expect(document.head.querySelector('link[rel="canonical"]')).toHaveAttribute(
      'href',
      `${window.location.origin}/about-us`,
    );
    expect(count('meta[name="description"]')).toBe(1);
  });

  it('marks private pages noindex and removes the mark elsewhere', async () => {
    window.history.pushState(null, '', '/profile/orders');
    const { unmount } = renderWithClient(
      <RouteMetaContext.Provider value={{ title: 'My Account', noindex: true }}>
        <PageMeta title="Orders" />
      </RouteMetaContext.Provider>,
    );
    await waitFor(() =>
      expect(document.head.querySelector('meta[name="robots"]')).toHaveAttribute('content', 'noindex'),
    );
    unmount();
    window.history.pushState(null, '', '/support');
    renderWithClient(
      <RouteMetaContext.Provider value={{ title: 'Support', noindex: false }}>
        <PageMeta title="Support" />
      </RouteMetaContext.Provider>,
    );
    await waitFor(() => expect(count('meta[name="robots"]')).toBe(0));
  });
});
