import { describe, expect, it } from 'vitest';
import { safeHref, safeImageSrc } from './safe-url';

describe('safeHref', () => {
  it.each([
    '/collection/rifles',
    '#careers',
    '?page=2',
    'relative/path',
    'https://example.com/a?b=c',
    'http://example.com',
    'mailto:support@example.com',
    'tel:+19285550100',
    '//cdn.example.com/file.pdf',
  ])('keeps %s', (url) => {
    expect(safeHref(url)).toBe(url);
  });

  it.each([
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    '  javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    '\u0001javascript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    '',
    '   ',
  ])('refuses %j', (url) => {
    expect(safeHref(url)).toBeNull();
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
  });
});
