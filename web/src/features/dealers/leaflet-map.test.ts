import L from 'leaflet';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DealerCard } from '../../api/types';
import { server } from '../../test/server';
import { createDealerMap, type DealerMapEngine } from './leaflet-map';

/* Spec §9 (shopping): map default zoom 4 centred at 39.8283, -98.5795; fit-to-bounds padding 16. */

const dealer = (id: string, lat: number, lng: number): DealerCard => ({
  id,
  name: id,
  phoneNumber: '(602) 555-0100',
  address1: '1 Main St',
  address2: `${id} City`,
  coordinates: { lat, lng },
});

let engine: DealerMapEngine | null = null;

beforeEach(() => {
  // the state outlines the map fetches: none here
  server.use(http.get(/states-10m\.json/, () => HttpResponse.json({})));
});

afterEach(() => {
  engine?.destroy();
  engine = null;
  vi.restoreAllMocks();
});

function mapOf(spy: { mock: { results: { value: unknown }[] } }): L.Map {
  return spy.mock.results[0]?.value as L.Map;
}

describe('the dealer map (Leaflet)', () => {
  it('opens at zoom 4 centred on (39.8283, -98.5795), and goes back there for an empty search', () => {
    const created = vi.spyOn(L, 'map');
    const options = { tileUrl: '', attribution: '', onSelect: vi.fn(), onClose: vi.fn(), onAuthFailure: vi.fn() };
    engine = createDealerMap(document.createElement('div'), options);
    const map = mapOf(created);
    expect(map.getZoom()).toBe(4);
    expect(map.getCenter()).toMatchObject({ lat: 39.8283, lng: -98.5795 });

    const setView = vi.spyOn(map, 'setView');
    engine.show([dealer('A', 40, -100)], null);
    expect(setView).toHaveBeenCalledWith([39.8283, -98.5795], 4);
  });

  it('fits a search and its dealers with a padding of 16', () => {
    const created = vi.spyOn(L, 'map');
    const options = { tileUrl: '', attribution: '', onSelect: vi.fn(), onClose: vi.fn(), onAuthFailure: vi.fn() };
    engine = createDealerMap(document.createElement('div'), options);
    const fitBounds = vi.spyOn(mapOf(created), 'fitBounds').mockImplementation(() => mapOf(created));
    engine.show([dealer('A', 33.5, -112.1), dealer('B', 33.4, -111.9)], { lat: 33.45, lng: -112.07, zip: '85004' });
    expect(fitBounds).toHaveBeenCalledTimes(1);
    const [bounds, fit] = fitBounds.mock.calls[0] ?? [];
    expect(fit).toEqual({ padding: [16, 16] });
    expect((bounds as L.LatLngBounds).contains([33.45, -112.07])).toBe(true);
    expect((bounds as L.LatLngBounds).contains([33.5, -112.1])).toBe(true);
  });
});
