/**
 * The route template of a page (`/product/:title`), never its path: Web Vitals are reported by
 * template, so a report carries no product, order or token. Each segment of `pathname` that is
 * one of the matched route's parameters becomes `:name`.
 */
export function routeTemplate(pathname: string, params: Readonly<Record<string, string | undefined>>): string {
  const names = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const segments = pathname
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // a malformed escape is not a parameter value the router decoded
      }
      const param = names.find(([, value]) => value === decoded);
      return param ? `:${param[0]}` : segment;
    });
  return segments.join('/') || '/';
}
