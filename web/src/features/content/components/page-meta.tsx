import { useContext, useEffect } from 'react';
import { RouteMetaContext } from '../../../lib/route-meta';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import type { MetaData } from '../types';

interface PageMetaProps {
  /** The page's own title; the brand name is appended. By default, its route's (`routes.json`). */
  title?: string | undefined;
  /** Content-managed metadata; its title and description are used as written and win. */
  metaData?: MetaData | undefined;
  /** Keep the page out of search results; by default, as its route says (`routes.json`). */
  noindex?: boolean | undefined;
}

/** The generic manufacturer description of the default site title and description (spec). */
export const GENERIC_DESCRIPTION = 'Firearms, parts and accessories from the manufacturer';

/** The default site title: the brand name with the generic description. */
export function defaultTitle(brandName: string): string {
  return brandName ? `${brandName} | ${GENERIC_DESCRIPTION}` : GENERIC_DESCRIPTION;
}

/**
 * The path the document was loaded at: the BFF rendered the head (tags marked `data-seo`) for
 * it, including tags this component does not manage (a product's JSON-LD and price).
 */
const landingPath = typeof window === 'undefined' ? '' : window.location.pathname;

/**
 * Sets the document title and the description meta tag, their social-preview equivalents (Open
 * Graph, Twitter card), the canonical URL and `noindex`, from the page's metaData; without any,
 * the site defaults.
 *
 * It takes over the head the server rendered (tags marked `data-seo`) instead of adding a
 * second set: each tag it manages is updated in place, and once the shopper has left the
 * landing page the server's tags it does not manage (which described that page) are removed.
 */
export function PageMeta({ title, metaData, noindex }: PageMetaProps) {
  const route = useContext(RouteMetaContext);
  const brandName = useRuntimeConfig()?.brandName ?? '';
  const pageTitle = title ?? route.title;
  const fullTitle =
    metaData?.title || (pageTitle ? [pageTitle, brandName].filter(Boolean).join(' | ') : defaultTitle(brandName));
  const description =
    metaData?.description || (brandName ? `${brandName}: ${GENERIC_DESCRIPTION}.` : `${GENERIC_DESCRIPTION}.`);
  const pathname = typeof window === 'undefined' ? '' : window.location.pathname;
  const hidden = noindex ?? route.noindex;

  useEffect(() => {
    // On the landing page the server's head describes this very page: its canonical URL, type
    // and image stay. Elsewhere, what it said about the landing page goes.
    const landing = pathname === landingPath;
    if (!landing) {
      const stale =
        '[data-seo]:is(script, meta[property^="product:"], meta[property="og:image"], meta[name="twitter:image"])';
      for (const element of document.head.querySelectorAll(stale)) element.remove();
    }
    document.title = fullTitle;
    setMeta('name', 'description', description);
    setMeta('property', 'og:title', fullTitle);
    setMeta('property', 'og:description', description);
    if (!landing || !document.head.querySelector('meta[property="og:type"]')) setMeta('property', 'og:type', 'website');
    if (brandName) setMeta('property', 'og:site_name', brandName);
    if (!landing || !document.head.querySelector('link[rel="canonical"]')) {
      const url = window.location.origin + pathname;
      setLink('canonical', url);
      setMeta('property', 'og:url', url);
    }
    if (!landing || !document.head.querySelector('meta[name="twitter:card"]'))
      setMeta('name', 'twitter:card', 'summary');
    setMeta('name', 'twitter:title', fullTitle);
    setMeta('name', 'twitter:description', description);
    if (hidden) {
      setMeta('name', 'robots', 'noindex');
    } else {
      document.head.querySelector('meta[name="robots"]')?.remove();
    }
  }, [fullTitle, description, brandName, pathname, hidden]);

  return null;
}

function setMeta(attribute: 'name' | 'property', key: string, content: string) {
  let element = document.head.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`);
  if (!element) {
    element = document.createElement('meta');
    element.setAttribute(attribute, key);
    document.head.append(element);
  }
  element.content = content;
}

function setLink(rel: string, href: string) {
  let element = document.head.querySelector<HTMLLinkElement>(`link[rel="${rel}"]`);
  if (!element) {
    element = document.createElement('link');
    element.rel = rel;
    document.head.append(element);
  }
  element.href = href;
}
