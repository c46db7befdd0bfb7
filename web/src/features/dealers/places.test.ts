import { describe, expect, it } from 'vitest';
import { dealerCard } from '../../test/fixtures/dealers';
import { hasPlaceOnMap, isTileAuthFailure } from './places';

describe('hasPlaceOnMap', () => {
  it('leaves out exactly (0, 0) only', () => {
    expect(hasPlaceOnMap(dealerCard('a', 0, 0))).toBe(false);
    expect(hasPlaceOnMap(dealerCard('b', 0, 1))).toBe(true);
    expect(hasPlaceOnMap(dealerCard('c', 33.4, -112))).toBe(true);
  });
});

describe('isTileAuthFailure', () => {
  it('is a 401 or 403, or a problem whose code is about the key', () => {
    expect(isTileAuthFailure(401)).toBe(true);
    expect(isTileAuthFailure(403)).toBe(true);
    expect(isTileAuthFailure(502, 'tile_key_rejected')).toBe(true);
    expect(isTileAuthFailure(502, 'upstream_unauthorized')).toBe(true);
    expect(isTileAuthFailure(502, 'upstream_failed')).toBe(false);
    expect(isTileAuthFailure(404)).toBe(false);
    expect(isTileAuthFailure(500, null)).toBe(false);
  });
});
