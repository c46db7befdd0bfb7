import { US_STATES } from '../../lib/us-states';

/** Countries the address form offers, with the regions listed for each (spec: state list depends on country). */
export const DEFAULT_COUNTRY = 'United States';

export interface Region {
  code: string;
  name: string;
}

// The states and DC (the one list, generated from the API), then the territories and the armed
// forces' regions, which an account's address may name too.
const US_REGIONS: Region[] = [
  ...US_STATES,
  ['AS', 'American Samoa'],
  ['GU', 'Guam'],
  ['MP', 'Northern Mariana Islands'],
  ['PR', 'Puerto Rico'],
  ['VI', 'U.S. Virgin Islands'],
  ['AA', 'Armed Forces Americas'],
  ['AE', 'Armed Forces Europe'],
  ['AP', 'Armed Forces Pacific'],
].map(([code, name]) => ({ code, name }));

const CANADIAN_PROVINCES: Region[] = [
  ['AB', 'Alberta'],
  ['BC', 'British Columbia'],
  ['MB', 'Manitoba'],
  ['NB', 'New Brunswick'],
  ['NL', 'Newfoundland and Labrador'],
  ['NS', 'Nova Scotia'],
  ['NT', 'Northwest Territories'],
  ['NU', 'Nunavut'],
  ['ON', 'Ontario'],
  ['PE', 'Prince Edward Island'],
  ['QC', 'Quebec'],
  ['SK', 'Saskatchewan'],
  ['YT', 'Yukon'],
].map(([code, name]) => ({ code: code ?? '', name: name ?? '' }));

const REGIONS: Record<string, Region[]> = {
  [DEFAULT_COUNTRY]: US_REGIONS,
  Canada: CANADIAN_PROVINCES,
};

export const COUNTRIES = Object.keys(REGIONS);

/** The regions of a country; empty for a country without a list (the form then asks for free text). */
export function regionsOf(country: string): Region[] {
  return REGIONS[country] ?? [];
}
