import { useEffect } from 'react';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import type { MetaData } from '../types';

interface PageMetaProps {
  /** The page's own title; the brand name is appended. */
  title?: string | undefined;
  /** Content-managed metadata; its title and description are used as written and win. */
  metaData?: MetaData | undefined;
}

/** The generic manufacturer description of the default site title and description (spec). */
export const GENERIC_DESCRIPTION = 'Firearms, parts and accessories from the manufacturer';

/** The default site title: the brand name with the generic description. */
export function defaultTitle(brandName: string): string {
  return brandName ? `${brandName} | ${GENERIC_DESCRIPTION}` : GENERIC_DESCRIPTION;
}

/**
 * Sets the document title and the description meta tag, and their social-preview equivalents
 * (Open Graph, Twitter card), from the page's metaData; without any, the site defaults.
 */
export function PageMeta({ title, metaData }: PageMetaProps) {
  const brandName = useRuntimeConfig()?.brandName ?? '';
  const fullTitle = metaData?.title || (title ? [title, brandName].filter(Boolean).join(' | ') : defaultTitle(brandName));
  const description = metaData?.description || (brandName ? `${brandName}: ${GENERIC_DESCRIPTION}.` : `${GENERIC_DESCRIPTION}.`);

  useEffect(() => {
    document.title = fullTitle;
    setMeta('name', 'description', description);
    setMeta('property', 'og:title', fullTitle);
    setMeta('property', 'og:description', description);
    setMeta('property', 'og:type', 'website');
    if (brandName) setMeta('property', 'og:site_name', brandName);
    setMeta('name', 'twitter:card', 'summary');
    setMeta('name', 'twitter:title', fullTitle);
    setMeta('name', 'twitter:description', description);
  }, [fullTitle, description, brandName]);

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
