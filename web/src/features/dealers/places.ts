import type { DealerCard } from '../../api/types';

/** Dealers at exactly (0, 0) have no place and stay off the map (spec). */
export function hasPlaceOnMap(dealer: DealerCard): boolean {
  return !(dealer.coordinates.lat === 0 && dealer.coordinates.lng === 0);
}
