import { US_STATES } from '../api/us-states';

/** The 50 US states plus the District of Columbia, generated from the API's `UsState` schema. */
export { US_STATES };

export type StateCode = (typeof US_STATES)[number][0];

const CODES = new Set<string>(US_STATES.map(([code]) => code));
const BY_NAME = new Map<string, string>(US_STATES.map(([code, name]) => [name.toLowerCase(), code]));

/** The two-letter code of a state given by code or full name (any case); '' when it is not a US state. */
export function stateCode(value: string | null | undefined): string {
  const text = (value ?? '').trim();
  if (CODES.has(text.toUpperCase())) return text.toUpperCase();
  return BY_NAME.get(text.toLowerCase()) ?? '';
}

/** The one country offered (spec section 9). */
export const COUNTRY = 'United States';
