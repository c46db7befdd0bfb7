import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostURL } from '../ssr/host/url';
import { safeHref, safeImageSrc } from './safe-url';

describe('safeHref', () => {
  it.each([
    ['/collection/rifles', '/collection/rifles'],
    ['#careers', '/#careers'],
    ['?page=2', '/?page=2'],
    ['relative/path', '/relative/path'],
    ['https://example.com/a?b=c', 'https://example.com/a?b=c'],
    ['http://example.com', 'http://example.com/'],
    ['mailto:support@example.com', 'mailto:support@example.com'],
    ['tel:+19285550100', 'tel:+19285550100'],
    ['//cdn.example.com/file.pdf', 'http://cdn.example.com/file.pdf'],
    [`${window.location.origin}/about-us`, '/about-us'],
  ])('keeps %j as the parser serialises it', (url, kept) => {
    expect(safeHref(url)).toBe(kept);
  });

  // Each way of hiding a scheme from a check on the text (issue 30, finding 6).
  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'JAVASCRIPT:alert(1)',
    '  javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'java\rscript:alert(1)',
    'jav\u0009as\u000acript:alert(1)',
    '\u0001javascript:alert(1)',
    'vbscript:msgbox(1)',
    'VBScript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'file:///etc/passwd',
    '',
    '   ',
    '\ufeff',
  ])('refuses %j', (url) => {
    expect(safeHref(url)).toBeNull();
  });

  // `trim()` strips these, the URL parser does not: the old check took them for a relative path
  // and handed back `javascript:…` (issue 30, finding 6).
  it.each(['\ufeff', '\u00a0', '\u3000', '\u2028', '\u200b'])('refuses %j before javascript:', (space) => {
    expect(safeHref(`${space}javascript:alert(1)`)).toBeNull();
    expect(safeImageSrc(`${space}javascript:alert(1)`)).toBeNull();
    expect(safeHref(`java${space}script:alert(1)`)).toBeNull();
  });

  it('refuses missing values', () => {
    expect(safeHref(null)).toBeNull();
    expect(safeHref(undefined)).toBeNull();
  });
});

describe('safeImageSrc', () => {
  it('keeps http(s) and relative sources and refuses other schemes', () => {
    expect(safeImageSrc('https://media.example.com/a.svg')).toBe('https://media.example.com/a.svg');
    expect(safeImageSrc('/images/a.jpg')).toBe('/images/a.jpg');
    expect(safeImageSrc('javascript:alert(1)')).toBeNull();
    expect(safeImageSrc('mailto:a@b.c')).toBeNull();
    expect(safeImageSrc('data:image/svg+xml,<svg onload=alert(1)>')).toBeNull();
  });
});

describe('in the server renderer (its URL, core-js’s, as in QuickJS)', () => {
  const browserUrl = globalThis.URL;
  beforeAll(() => {
    globalThis.URL = HostURL;
  });
  afterAll(() => {
    globalThis.URL = browserUrl;
  });

  it('refuses every bypass string as the browser does', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      '\u0001javascript:alert(1)',
      '\ufeffjavascript:alert(1)',
      '\u00a0javascript:alert(1)',
      '\u3000javascript:alert(1)',
      '\u2028javascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
    ]) {
      expect(safeHref(url), JSON.stringify(url)).toBeNull();
    }
  });

  // Issue 46, finding 5: read as a path, `/\evil.example/x` passed for a same-origin link.
  it('reads a backslash as the browser does', () => {
    for (const url of ['/\\evil.example/x', '\\\\evil.example/x', 'https:\\\\evil.example\\x', '/a\\b?c\\d']) {
      const rendered = new HostURL(url, 'http://localhost/');
      const browser = new browserUrl(url, 'http://localhost/');
      expect(`${rendered.origin}${rendered.pathname}${rendered.search}`, JSON.stringify(url)).toBe(
        `${browser.origin}${browser.pathname}${browser.search}`,
      );
    }
    expect(new HostURL('/\\evil.example/x', 'http://localhost/').host).toBe('evil.example');
  });

  it('keeps what the browser keeps, serialised the same', () => {
    for (const url of [
      '/collection/rifles',
      'https://example.com/a?b=c',
      'mailto:support@example.com',
      'tel:+19285550100',
    ]) {
      const rendered = safeHref(url);
      globalThis.URL = browserUrl;
      const hydrated = safeHref(url);
      globalThis.URL = HostURL;
      expect(rendered).toBe(hydrated);
      expect(rendered).not.toBeNull();
    }
  });
});
