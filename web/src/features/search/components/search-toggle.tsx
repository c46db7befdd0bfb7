import { lazy, Suspense, useCallback, useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { SearchIcon } from '../../../components/ui/icons';
import { leadingDebounce } from '../../../lib/debounce';
import { TOGGLE_DEBOUNCE_MS } from '../api';

const loadOverlay = () => import('./search-overlay');
const SearchOverlay = lazy(loadOverlay);

/**
 * The header's search icon: toggles the search overlay (debounced 1 s, leading edge: a double click
 * does not open and at once close it). The overlay's code loads on first use.
 */
export function SearchToggle() {
  const [open, setOpen] = useState(false);
  const [toggle] = useState(() =>
    leadingDebounce(() => {
      setOpen((value) => !value);
    }, TOGGLE_DEBOUNCE_MS),
  );
  const buttonRef = useRef<HTMLButtonElement>(null);
  const overlayId = useId();

  const { pathname } = useLocation();
  const [lastPathname, setLastPathname] = useState(pathname);
  if (lastPathname !== pathname) {
    // a page change closes the overlay (adjusting state while rendering, not in an effect)
    setLastPathname(pathname);
    setOpen(false);
  }

  useEffect(
    () => () => {
      toggle.cancel();
    },
    [toggle],
  );

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  }, []);

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className="icon-button"
        aria-expanded={open}
        aria-controls={open ? overlayId : undefined}
        aria-label="Search"
        onClick={toggle}
        onPointerEnter={() => void loadOverlay()}
        onFocus={() => void loadOverlay()}
      >
        <SearchIcon />
      </button>
      {open ? (
        <Suspense fallback={null}>
          <SearchOverlay id={overlayId} onClose={close} />
        </Suspense>
      ) : null}
    </>
  );
}
