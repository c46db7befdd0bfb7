/** Schemes a content-managed link or image may use. Anything else (javascript:, data:, vbscript:…) is refused. */
const SAFE_LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const SAFE_IMAGE_SCHEMES = new Set(['http:', 'https:']);

/**
 * The URL if it is safe to put in an `href`, else null. Relative URLs (paths, `#hash`, `?query`)
 * are safe; absolute ones must use http, https, mailto or tel. Browsers ignore tabs, newlines and
 * leading control characters in a scheme (`java\tscript:`), so those are stripped before the check.
 */
export function safeHref(url: string | null | undefined): string | null {
  return check(url, SAFE_LINK_SCHEMES);
}

/** The URL if it is safe as an image source (relative, http or https), else null. */
export function safeImageSrc(url: string | null | undefined): string | null {
  return check(url, SAFE_IMAGE_SCHEMES);
}

function check(url: string | null | undefined, schemes: ReadonlySet<string>): string | null {
  if (typeof url !== 'string') return null;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const cleaned = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (cleaned === '') return null;
  const scheme = /^([a-z][a-z\d+.-]*):/i.exec(cleaned)?.[1];
  if (scheme === undefined) {
    // protocol-relative URLs leave the origin but keep the page's scheme
    return url.trim();
  }
  return schemes.has(`${scheme.toLowerCase()}:`) ? url.trim() : null;
}
