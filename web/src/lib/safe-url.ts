/**
 * The one check for URLs that come from content (the CMS, search results, the commerce API):
 * every `href`, `src` and `location.assign` of such a URL goes through here.
 *
 * The URL is parsed as the browser will parse it (`new URL(url, page)`), and its protocol must
 * be on an allow-list. What is returned is the parser's own serialisation, never the input:
 * a check on the input's text and a browser reading it differently (`trim()` strips U+FEFF,
 * U+00A0, U+3000 and U+2028, which the URL parser keeps, so a "relative path" became
 * `javascript:` once trimmed) can then never disagree. Same-origin URLs come back as
 * path + query + hash, so the router handles them and a server-rendered page names no host.
 *
 * A URL that would take a refused protocol if some reader dropped its spaces and invisible
 * characters (`\ufeffjavascript:`, `java\u3000script:`) is refused too: the parser alone reads
 * it as a harmless path, but it is no link anybody meant, and another reader (a CMS preview, an
 * e-mail client) might strip them.
 */
const SAFE_LINK_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const SAFE_IMAGE_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);

/** The URL if it is safe in an `href` (http, https, mailto, tel, or relative), else null. */
export function safeHref(url: string | null | undefined): string | null {
  return checkUrl(url, SAFE_LINK_PROTOCOLS);
}

/** The URL if it is safe as an image source (http, https, or relative), else null. */
export function safeImageSrc(url: string | null | undefined): string | null {
  return checkUrl(url, SAFE_IMAGE_PROTOCOLS);
}

/** Every space, control and invisible character some reader of a URL might drop. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const DROPPABLE = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2060\ufeff]/g;

function pageHref(): string {
  return typeof window !== 'undefined' && typeof window.location === 'object'
    ? window.location.href
    : 'http://localhost/';
}

/** The page's URL, parsed once per address (every link of a page is checked against it). */
let page: { href: string; url: URL } | undefined;

function pageUrl(): URL {
  const href = pageHref();
  if (page?.href !== href) page = { href, url: new URL(href) };
  return page.url;
}

/**
 * Answers already given, by page, allow-list and input: a page checks the same header, footer
 * and card links on every render, and parsing each again cost a phone's main thread tens of
 * milliseconds while the page hydrated. Bounded: cleared whole when full.
 */
const answered = new Map<string, string | null>();
const ANSWERED_MAX = 1024;

function checkUrl(url: string | null | undefined, protocols: ReadonlySet<string>): string | null {
  if (typeof url !== 'string') return null;
  const key = `${protocols === SAFE_LINK_PROTOCOLS ? 'a' : 'i'}${pageHref()}\n${url}`;
  const known = answered.get(key);
  if (known !== undefined) return known;
  const answer = parseAndCheck(url, protocols);
  if (answered.size >= ANSWERED_MAX) answered.clear();
  answered.set(key, answer);
  return answer;
}

function parseAndCheck(url: string, protocols: ReadonlySet<string>): string | null {
  const compact = url.replace(DROPPABLE, '');
  // An empty (or blank) value is no link at all, though it would parse as the page itself.
  if (compact === '') return null;
  let base: URL;
  let parsed: URL;
  try {
    base = pageUrl();
    parsed = new URL(url, base);
    // the compacted text parses as the input did when nothing was dropped
    const compacted = compact === url ? parsed : new URL(compact, base);
    if (!protocols.has(compacted.protocol)) return null;
  } catch {
    return null;
  }
  if (!protocols.has(parsed.protocol)) return null;
  if (parsed.origin === base.origin) return `${parsed.pathname}${parsed.search}${parsed.hash}`;
  return parsed.href;
}
