/**
 * The dealer map on Leaflet: loaded with the locator route only (dynamic import), never in the
 * entry bundle. Imperative; the React side (`DealerMap`) drives it.
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import statesUrl from 'us-atlas/states-10m.json?url';
import type { DealerCard, DealerSearchCenter } from '../../api/types';
import { safeHref } from '../../lib/safe-url';
import { hasPlaceOnMap, isTileAuthFailure } from './places';

/** Spec §9: default zoom 4 centred on the contiguous US; fit-to-bounds padding 16. */
export const DEFAULT_CENTER: L.LatLngTuple = [39.8283, -98.5795];
export const DEFAULT_ZOOM = 4;
export const FIT_PADDING = 16;
/** The zoom for a searched zip with no dealer in range. */
const ZIP_ZOOM = 9;

export interface DealerMapOptions {
  tileUrl: string;
  attribution: string;
  /** A marker was activated (click, Enter). */
  onSelect: (dealerId: string) => void;
  /** The info window closed (map click, its close button). */
  onClose: () => void;
  /** The tile provider refused its key (401 or 403). */
  onAuthFailure: () => void;
}

export interface DealerMapEngine {
  show: (dealers: readonly DealerCard[], center: DealerSearchCenter | null) => void;
  select: (dealerId: string | null) => void;
  destroy: () => void;
}

function popupContent(dealer: DealerCard): HTMLElement {
  const box = document.createElement('div');
  box.className = 'dealer-popup';
  const name = document.createElement('strong');
  name.textContent = dealer.id;
  box.append(name);
  for (const line of [dealer.address1, dealer.address2]) {
    if (!line) continue;
    const text = document.createElement('div');
    text.textContent = line;
    box.append(text);
  }
  const tel = safeHref(`tel:${dealer.phoneNumber.replace(/[^\d+]/g, '')}`);
  if (dealer.phoneNumber && tel) {
    const phone = document.createElement('a');
    phone.href = tel;
    phone.textContent = dealer.phoneNumber;
    box.append(phone);
  }
  return box;
}

const markerIcon = L.divIcon({
  className: 'dealer-marker',
  html: '<span class="dealer-marker__pin" aria-hidden="true"></span>',
  iconSize: [24, 24],
  iconAnchor: [12, 24],
  popupAnchor: [0, -22],
});

async function problemCode(response: Response): Promise<string | null> {
  const body: unknown = await response.json().catch(() => null);
  return typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string'
    ? body.code
    : null;
}

function isStatesTopology(value: unknown): value is Topology<{ states: GeometryCollection }> {
  if (typeof value !== 'object' || value === null || !('type' in value) || value.type !== 'Topology') return false;
  if (!('objects' in value) || typeof value.objects !== 'object' || value.objects === null) return false;
  return 'states' in value.objects;
}

let statesPromise: Promise<GeoJSON.FeatureCollection | GeoJSON.Feature | null> | undefined;

/** The state outlines as GeoJSON, fetched once per page; null when they cannot be had. */
function loadStates() {
  statesPromise ??= fetch(statesUrl)
    .then((response) => (response.ok ? (response.json() as Promise<unknown>) : null))
    .then((json) => (isStatesTopology(json) ? feature(json, json.objects.states) : null))
    .catch(() => null);
  return statesPromise;
}

export function createDealerMap(element: HTMLElement, options: DealerMapOptions): DealerMapEngine {
  let removed = false;
  const map = L.map(element, {
    center: DEFAULT_CENTER,
    zoom: DEFAULT_ZOOM,
    closePopupOnClick: true,
    worldCopyJump: true,
    // Leaflet's animated zoom finishes on a timer that outlives `map.remove()` and then reads
    // the removed panes ("Cannot read properties of undefined (reading '_leaflet_pos')") when
    // the shopper leaves the locator mid-zoom: zoom without the CSS transition.
    zoomAnimation: false,
  });
  map.attributionControl.setPrefix(false);

  if (options.tileUrl) {
    const tiles = L.tileLayer(options.tileUrl, { attribution: options.attribution, maxZoom: 18 });
    let checked = false;
    tiles.on('tileerror', (event: L.TileErrorEvent) => {
      // one look at why a tile failed: a refused key is the provider's 401/403
      if (checked) return;
      checked = true;
      const src = event.tile.src;
      if (!src) return;
      void fetch(src, { credentials: 'same-origin' })
        .then(async (response) => {
          if (response.ok) return;
          const problem = (response.headers.get('Content-Type') ?? '').includes('application/problem+json')
            ? await problemCode(response)
            : null;
          if (isTileAuthFailure(response.status, problem)) options.onAuthFailure();
        })
        .catch(() => undefined);
    });
    tiles.addTo(map);
  }

  // the US state outlines (Census data from us-atlas, an asset of the build): real geography
  // with or without a tile provider
  void loadStates().then((outlines) => {
    if (!outlines || removed) return;
    L.geoJSON(outlines, {
      interactive: false,
      style: {
        color: '#5b6670',
        weight: 1,
        opacity: 0.9,
        fillColor: '#e9e6dc',
        fillOpacity: options.tileUrl ? 0.15 : 0.6,
      },
    }).addTo(map);
  });
  map.attributionControl.addAttribution('State outlines: US Census Bureau');

  const markers = new Map<string, { marker: L.Marker; dealer: DealerCard }>();
  let openId: string | null = null;
  let closingQuietly = false;

  map.on('popupclose', () => {
    openId = null;
    if (!closingQuietly) options.onClose();
  });

  const select = (dealerId: string | null) => {
    if (dealerId === openId) return;
    if (dealerId === null) {
      closingQuietly = true;
      map.closePopup();
      closingQuietly = false;
      return;
    }
    const entry = markers.get(dealerId);
    if (!entry) return;
    closingQuietly = true;
    map.closePopup();
    closingQuietly = false;
    openId = dealerId;
    map.panTo(entry.marker.getLatLng());
    L.popup({ offset: [0, -22], autoPan: true })
      .setLatLng(entry.marker.getLatLng())
      .setContent(popupContent(entry.dealer))
      .openOn(map);
  };

  return {
    show: (dealers, center) => {
      closingQuietly = true;
      map.closePopup();
      closingQuietly = false;
      openId = null;
      for (const { marker } of markers.values()) marker.remove();
      markers.clear();

      const placed = dealers.filter(hasPlaceOnMap);
      for (const dealer of placed) {
        const marker = L.marker([dealer.coordinates.lat, dealer.coordinates.lng], {
          icon: markerIcon,
          keyboard: true,
          title: dealer.id,
          riseOnHover: true,
        });
        // the info window opens through `select`, so list and map stay in sync
        marker.on('click', () => {
          options.onSelect(dealer.id);
        });
        // keyboard: the focused marker (a button) opens its info window with Enter or Space
        marker.on('keypress', (event: L.LeafletKeyboardEvent) => {
          const key = event.originalEvent.key;
          if (key !== 'Enter' && key !== ' ') return;
          event.originalEvent.preventDefault();
          options.onSelect(dealer.id);
        });
        marker.addTo(map);
        const icon = marker.getElement();
        if (icon) icon.setAttribute('aria-label', `${dealer.id}, ${dealer.address2}`.replace(/, $/, ''));
        markers.set(dealer.id, { marker, dealer });
      }

      if (center) {
        const points: L.LatLngTuple[] = [
          [center.lat, center.lng],
          ...placed.map((d): L.LatLngTuple => [d.coordinates.lat, d.coordinates.lng]),
        ];
        if (placed.length > 0) map.fitBounds(L.latLngBounds(points), { padding: [FIT_PADDING, FIT_PADDING] });
        else map.setView([center.lat, center.lng], ZIP_ZOOM);
      } else {
        map.setView(DEFAULT_CENTER, DEFAULT_ZOOM);
      }
    },
    select,
    destroy: () => {
      removed = true;
      // a pan still running would step on the removed panes
      map.stop();
      map.remove();
    },
  };
}
