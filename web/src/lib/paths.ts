/** Link builders. Titles and queries are lower-cased and URL-encoded (spec: shopping §2). */

function segment(value: string): string {
  return encodeURIComponent(value.trim().toLowerCase());
}

export const paths = {
  home: () => '/',
  product: (title: string) => `/product/${segment(title)}`,
  collection: (title: string) => `/collection/${segment(title)}`,
  search: (query: string) => `/search/${segment(query)}`,
  dealerLocator: () => '/dealer-locator',
  checkout: () => '/checkout',
  login: () => '/login',
  account: () => '/profile',
} as const;

/** True for links that leave the single-page app (other origins, mailto:, tel:, files). */
export function isExternalHref(href: string): boolean {
  return /^(?:[a-z][a-z\d+.-]*:|\/\/)/i.test(href);
}
