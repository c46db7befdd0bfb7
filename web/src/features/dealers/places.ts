import type { DealerCard } from '../../api/types';

/** Dealers at exactly (0, 0) have no place and stay off the map (spec). */
export function hasPlaceOnMap(dealer: DealerCard): boolean {
  return !(dealer.coordinates.lat === 0 && dealer.coordinates.lng === 0);
}

/**
 * Whether a failed tile's answer says the map provider refused the key: a 401 or 403, or a
 * problem document whose code names the key or the authorization (however the BFF words it).
 */
export function isTileAuthFailure(status: number, problemCode?: string | null): boolean {
  if (status === 401 || status === 403) return true;
  return typeof problemCode === 'string' && /auth|key|forbidden|unauthori[sz]ed/i.test(problemCode);
}
