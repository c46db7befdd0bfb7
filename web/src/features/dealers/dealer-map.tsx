import { useEffect, useRef, useState } from 'react';
import type { DealerCard, DealerSearchCenter } from '../../api/types';
import { useAfterFirstScreen } from '../../lib/idle';
import { useRuntimeConfig } from '../../lib/runtime-config';
import type { DealerMapEngine } from './leaflet-map';

/** The maps loader states (spec §4). */
export type MapStatus = 'NOT_LOADED' | 'LOADING' | 'LOADED' | 'FAILED' | 'AUTH_FAILURE';

interface DealerMapProps {
  dealers: readonly DealerCard[];
  center: DealerSearchCenter | null;
  selectedId: string | null;
  onSelect: (dealerId: string | null) => void;
}

/**
 * The Leaflet map, loaded on demand after the first screen (its module, Leaflet and the state
 * outlines are their own chunk). The loader state decides what shows: a loading note, the map, a failure note, or the
 * 'Error: AuthFailure' panel when the tile provider refuses the key.
 */
export function DealerMap({ dealers, center, selectedId, onSelect }: DealerMapProps) {
  const config = useRuntimeConfig();
  const tileUrl = config?.maps.tileUrl;
  const attribution = config?.maps.attribution ?? '';
  const configLoaded = config !== undefined;
  const later = useAfterFirstScreen();
  const elementRef = useRef<HTMLDivElement>(null);
  const engineRef = useRef<DealerMapEngine | null>(null);
  const [status, setStatus] = useState<MapStatus>('NOT_LOADED');
  const onSelectRef = useRef(onSelect);
  const latest = useRef({ dealers, center, selectedId });

  useEffect(() => {
    onSelectRef.current = onSelect;
    latest.current = { dealers, center, selectedId };
  });

  useEffect(() => {
    const element = elementRef.current;
    if (!element || !configLoaded || !later) return;
    let cancelled = false;
    setStatus('LOADING');
    import('./leaflet-map').then(
      ({ createDealerMap }) => {
        if (cancelled) return;
        try {
          const engine = createDealerMap(element, {
            tileUrl: tileUrl ?? '',
            attribution,
            onSelect: (id) => {
              onSelectRef.current(id);
            },
            onClose: () => {
              onSelectRef.current(null);
            },
            onAuthFailure: () => {
              if (!cancelled) setStatus('AUTH_FAILURE');
            },
          });
          engineRef.current = engine;
          engine.show(latest.current.dealers, latest.current.center);
          engine.select(latest.current.selectedId);
          setStatus('LOADED');
        } catch (error) {
          console.error('The dealer map could not start', error);
          setStatus('FAILED');
        }
      },
      (error: unknown) => {
        console.error('The dealer map could not be loaded', error);
        if (!cancelled) setStatus('FAILED');
      },
    );
    return () => {
      cancelled = true;
      engineRef.current?.destroy();
      engineRef.current = null;
    };
  }, [configLoaded, later, tileUrl, attribution]);

  useEffect(() => {
    engineRef.current?.show(dealers, center);
  }, [dealers, center]);

  useEffect(() => {
    engineRef.current?.select(selectedId);
  }, [selectedId, dealers]);

  return (
    <div className="dealer-map" data-status={status}>
      <div
        ref={elementRef}
        className="dealer-map__canvas"
        role="region"
        aria-label="Dealer map"
        hidden={status === 'FAILED' || status === 'AUTH_FAILURE'}
      />
      {status === 'LOADING' || status === 'NOT_LOADED' ? (
        <p className="dealer-map__note" role="status">
          Loading map…
        </p>
      ) : null}
      {status === 'FAILED' ? (
        <p className="dealer-map__note" role="alert">
          The map could not be loaded. The dealer list is still available.
        </p>
      ) : null}
      {status === 'AUTH_FAILURE' ? (
        <div className="dealer-map__auth-failure" role="alert">
          <h2>Error: AuthFailure</h2>
          <p>
            A problem occurred while authenticating with the map service: the API key was rejected. The dealer list is
            still available.
          </p>
        </div>
      ) : null}
    </div>
  );
}
