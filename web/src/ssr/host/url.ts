/**
 * `URL` and `URLSearchParams` for the server render's engine, which has neither: core-js's
 * implementation of the WHATWG URL standard (its parser's state machine, percent-encoding sets,
 * IPv4/IPv6 hosts and punycode), the same answers a browser gives. The app makes link-safety
 * decisions with `URL` (`lib/safe-url.ts`), so this is no place for a parser of our own.
 *
 * The pure build: nothing is installed on import; `installHost` defines these where the engine
 * lacks them. Only the server bundle imports this file (the browser has its own).
 */
import URL from 'core-js-pure/actual/url';
import URLSearchParams from 'core-js-pure/actual/url-search-params';

export { URL as HostURL, URLSearchParams as HostURLSearchParams };
