/** The dealer locator's search rules and constants (spec §5 and §9). */

export const RADIUS_OPTIONS = [50, 100, 150, 200, 250] as const;
export type Radius = (typeof RADIUS_OPTIONS)[number];
export const DEFAULT_RADIUS: Radius = 50;
export const ZIP_LENGTH = 5;
export const GEOCODING_FAILED = 'Geocoding request failed';

export interface DealerSearch {
  /** '' for no zip: every dealer. */
  zip: string;
  radius: Radius;
}

/** What the zip box keeps of typed or pasted text: digits only, at most five. */
export function sanitizeZip(input: string): string {
  return input.replace(/\D/g, '').slice(0, ZIP_LENGTH);
}

export function isRadius(value: unknown): value is Radius {
  return typeof value === 'number' && (RADIUS_OPTIONS as readonly number[]).includes(value);
}

/** A radius from text (a select's value, a query string); anything not offered is the default. */
export function parseRadius(value: string | null | undefined): Radius {
  const number = Number(value);
  return isRadius(number) ? number : DEFAULT_RADIUS;
}

/** The search in the page's URL (`?zip=80202&radius=100`): a zip that is not five digits means none. */
export function searchFromParams(params: URLSearchParams): DealerSearch {
  const zip = params.get('zip') ?? '';
  return { zip: /^\d{5}$/.test(zip) ? zip : '', radius: parseRadius(params.get('radius')) };
}

export function searchToParams(search: DealerSearch): URLSearchParams {
  const params = new URLSearchParams();
  if (search.zip) {
    params.set('zip', search.zip);
    params.set('radius', String(search.radius));
  }
  return params;
}
