import { describe, expect, it } from 'vitest';
import { isExternalHref, needsNewDocument, paths } from './paths';

describe('paths', () => {
  it('lower-cases and URL-encodes titles and queries', () => {
    expect(paths.product('Model 7 / Long Range')).toBe('/product/model%207%20%2F%20long%20range');
    expect(paths.collection('Apparel & Gear')).toBe('/collection/apparel%20%26%20gear');
    expect(paths.search('  Scope ')).toBe('/search/scope');
  });

  it('tells external links from in-app paths', () => {
    expect(isExternalHref('https://example.com')).toBe(true);
    expect(isExternalHref('//cdn.example.com/a.pdf')).toBe(true);
    expect(isExternalHref('mailto:support@example.com')).toBe(true);
    expect(isExternalHref('/collection/rifles')).toBe(false);
    expect(isExternalHref('about-us')).toBe(false);
  });

  it('names the paths that load a document of their own', () => {
    expect(needsNewDocument('/3dbuilder')).toBe(true);
    expect(needsNewDocument('/3dbuilder?sku=TF-1')).toBe(true);
    expect(needsNewDocument('/3dbuilders')).toBe(false);
    expect(needsNewDocument('/search/3dbuilder')).toBe(false);
  });
});
