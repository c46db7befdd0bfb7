import { afterEach, describe, expect, it } from 'vitest';
import { preloadModules, readRouteChunks } from './route-chunks';

function list(json: string): void {
  document.body.innerHTML = `<div id="root"></div><script type="application/json" id="route-chunks">${json}</script>`;
}

describe('route chunks', () => {
  afterEach(() => {
    document.head.innerHTML = '';
    document.body.innerHTML = '';
  });

  it("reads the document's list, keeping only the build's own scripts", () => {
    list(
      '["/assets/product-1a.js","https://evil.example/x.js","/assets/../x.js","/assets/a.css",7,"/assets/money-2b.js"]',
    );
    expect(readRouteChunks()).toEqual(['/assets/product-1a.js', '/assets/money-2b.js']);
  });

  it('reads nothing from a missing, empty or broken list', () => {
    expect(readRouteChunks()).toEqual([]);
    list('');
    expect(readRouteChunks()).toEqual([]);
    list('{"not":"a list"}');
    expect(readRouteChunks()).toEqual([]);
    list('["/assets/a.js"');
    expect(readRouteChunks()).toEqual([]);
  });

  it('preloads each module once, as modulepreload', () => {
    document.head.innerHTML = '<link rel="modulepreload" href="/assets/framework-1.js">';
    preloadModules(['/assets/framework-1.js', '/assets/product-1.js', '/assets/money-1.js']);
    preloadModules(['/assets/product-1.js']);
    const links = [...document.head.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')];
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '/assets/framework-1.js',
      '/assets/product-1.js',
      '/assets/money-1.js',
    ]);
    expect(links.slice(1).every((link) => link.crossOrigin === '')).toBe(true);
  });
});
