// core-js-pure ships no types: its URL modules export the standard classes.
declare module 'core-js-pure/actual/url' {
  const URL: typeof globalThis.URL;
  export default URL;
}
declare module 'core-js-pure/actual/url-search-params' {
  const URLSearchParams: typeof globalThis.URLSearchParams;
  export default URLSearchParams;
}
