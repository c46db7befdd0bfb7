/** Link builders. Titles and queries are lower-cased and URL-encoded (spec: shopping §2). */

function segment(value: string): string {
  return encodeURIComponent(value.trim().toLowerCase());
}

export const paths = {
  home: () => '/',
  /** A product page; with `sku`, opened on that sku (`?sku=`; the canonical URL stays without it). */
  product: (title: string, sku?: string) =>
    sku ? `/product/${segment(title)}?sku=${encodeURIComponent(sku)}` : `/product/${segment(title)}`,
  collection: (title: string) => `/collection/${segment(title)}`,
  search: (query: string) => `/search/${segment(query)}`,
  dealerLocator: () => '/dealer-locator',
  checkout: () => '/checkout',
  /** The sign-in page; with `returnTo`, sign-in comes back to that page (see `safeReturnPath`). */
  login: (returnTo?: string) => (returnTo ? `/login?redirectTo=${encodeURIComponent(returnTo)}` : '/login'),
  account: () => '/profile',
} as const;

/**
 * True for in-app paths that must load a new document: the 3D builder's page is the one whose
 * Content-Security-Policy allows WebAssembly, and a policy belongs to the document, so an in-app
 * navigation there would keep the old one and the build could not start.
 */
export function needsNewDocument(href: string): boolean {
  return /^\/3dbuilder(?:[?#]|$)/.test(href);
}

/** True for links that leave the single-page app (other origins, mailto:, tel:, files). */
export function isExternalHref(href: string): boolean {
  return /^(?:[a-z][a-z\d+.-]*:|\/\/)/i.test(href);
}

/**
 * A path to go back to after sign-in: only a path of this site (`/…`, never `//host` or `/\\host`),
 * else null.
 */
export function safeReturnPath(value: string | null | undefined): string | null {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  return value;
}
