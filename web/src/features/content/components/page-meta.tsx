import { useEffect } from 'react';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import type { MetaData } from '../types';

interface PageMetaProps {
  /** The page's own title; the brand name is appended. */
  title?: string | undefined;
  /** Content-managed metadata; its title is used as written and wins over `title`. */
  metaData?: MetaData | undefined;
}

const GENERIC_DESCRIPTION = 'Firearms, parts and accessories from the manufacturer.';

/** Sets the document title and description meta tags (and their social-preview equivalents). */
export function PageMeta({ title, metaData }: PageMetaProps) {
  const brandName = useRuntimeConfig()?.brandName ?? '';
  const fullTitle = metaData?.title || [title, brandName].filter(Boolean).join(' | ') || 'Storefront';
  const description = metaData?.description || (brandName ? `${brandName}: ${GENERIC_DESCRIPTION}` : GENERIC_DESCRIPTION);

  useEffect(() => {
    document.title = fullTitle;
    setMeta('name', 'description', description);
    setMeta('property', 'og:title', fullTitle);
    setMeta('property', 'og:description', description);
    setMeta('name', 'twitter:title', fullTitle);
    setMeta('name', 'twitter:description', description);
  }, [fullTitle, description]);

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
