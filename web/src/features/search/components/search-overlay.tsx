import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type KeyboardEvent, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { SearchIcon } from '../../../components/ui/icons';
import { isExternalHref, paths } from '../../../lib/paths';
import { safeHref, safeImageSrc } from '../../../lib/safe-url';
import { searchFailure } from '../../../lib/search-failure';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import {
  resultImage,
  SUBMIT_MIN_LENGTH,
  SUGGESTION_DEBOUNCE_MS,
  SUGGESTION_MIN_LENGTH,
  suggestionsQuery,
  type SearchResult,
} from '../api';

const NO_RESULTS: SearchResult[] = [];

interface SearchOverlayProps {
  id: string;
  /** `returnFocus`: whether focus goes back to the search icon (not when the page changes). */
  onClose: (returnFocus: boolean) => void;
}

/**
 * The search overlay: a search box with suggestions (WAI-ARIA combobox with a listbox popup).
 * Suggestions load for more than 2 characters, 500 ms after typing stops; emptying the box clears
 * them. Arrow keys move through them, Enter picks one (or submits), Escape closes. Submitting goes
 * to the results page for more than 1 character, otherwise just closes. A click on the dimmed page
 * closes too.
 */
export default function SearchOverlay({ id, onClose }: SearchOverlayProps) {
  const [text, setText] = useState('');
  const term = text.trim();
  const debounced = useDebouncedValue(term, SUGGESTION_DEBOUNCE_MS);
  const enabled = debounced.length >= SUGGESTION_MIN_LENGTH;
  const { data, isFetched, error } = useQuery({ ...suggestionsQuery(debounced.toLowerCase()), enabled });
  const results = term.length >= SUGGESTION_MIN_LENGTH && enabled && data ? data : NO_RESULTS;
  // 'Search is unavailable' (or too many searches) instead of a silent "no suggestions"
  const failure = term.length >= SUGGESTION_MIN_LENGTH && enabled && error ? searchFailure(error) : null;

  const [active, setActive] = useState(-1);
  const [lastResults, setLastResults] = useState(results);
  if (lastResults !== results) {
    // a new list starts with nothing selected (adjusting state while rendering)
    setLastResults(results);
    setActive(-1);
  }

  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);
  const backdropRef = useRef<HTMLDivElement>(null);
  const inputId = useId();
  const listId = useId();
  const optionId = (index: number) => `${listId}-option-${String(index)}`;

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  // Escape anywhere in the overlay closes it; so does a click on the dimmed page
  useEffect(() => {
    const onKeyDown = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      onClose(true);
    };
    const onBackdropClick = () => {
      onClose(true);
    };
    const backdrop = backdropRef.current;
    document.addEventListener('keydown', onKeyDown);
    backdrop?.addEventListener('click', onBackdropClick);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      backdrop?.removeEventListener('click', onBackdropClick);
    };
  }, [onClose]);

  const choose = (result: SearchResult) => {
    const href = safeHref(result.url);
    onClose(false);
    if (!href) return;
    if (isExternalHref(href)) window.location.assign(href);
    else void navigate(href);
  };

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (term.length < SUBMIT_MIN_LENGTH) {
      onClose(true);
      return;
    }
    onClose(false);
    void navigate(paths.search(term));
  };

  const onInputKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const count = results.length;
    switch (event.key) {
      case 'ArrowDown':
        if (count === 0) return;
        event.preventDefault();
        setActive((index) => (index + 1) % count);
        break;
      case 'ArrowUp':
        if (count === 0) return;
        event.preventDefault();
        setActive((index) => (index <= 0 ? count - 1 : index - 1));
        break;
      case 'Enter': {
        const result = results[active];
        if (!result) return; // the form submits
        event.preventDefault();
        choose(result);
        break;
      }
      case 'Escape':
        event.preventDefault();
        onClose(true);
        break;
      default:
    }
  };

  const expanded = results.length > 0;
  const showStatus = term.length >= SUGGESTION_MIN_LENGTH && enabled && isFetched;

  return (
    <div id={id} className="search-overlay">
      <div ref={backdropRef} className="search-overlay__backdrop" />
      <div className="search-overlay__panel">
        <form role="search" aria-label="Site search" className="search-overlay__form" onSubmit={onSubmit}>
          <label htmlFor={inputId} className="visually-hidden">
            Search products
          </label>
          <input
            ref={inputRef}
            id={inputId}
            className="search-overlay__input"
            type="search"
            name="q"
            placeholder="SEARCH"
            autoComplete="off"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={expanded}
            aria-controls={listId}
            aria-activedescendant={active >= 0 ? optionId(active) : undefined}
            value={text}
            onChange={(event) => {
              setText(event.target.value);
            }}
            onKeyDown={onInputKeyDown}
          />
          <button type="submit" className="icon-button search-overlay__submit" aria-label="Submit search">
            <SearchIcon />
          </button>
        </form>
        <div
          id={listId}
          role="listbox"
          aria-label="Search suggestions"
          className="search-overlay__results"
          hidden={!expanded}
        >
          {results.map((result, index) => {
            const image = resultImage(result);
            const src = safeImageSrc(image?.src);
            return (
              <div
                key={`${result.url}-${String(index)}`}
                id={optionId(index)}
                role="option"
                tabIndex={-1}
                aria-selected={index === active}
                className="search-overlay__result"
                onMouseDown={(event) => {
                  // keep focus in the search box
                  event.preventDefault();
                }}
                onClick={() => {
                  choose(result);
                }}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') choose(result);
                }}
              >
                {src ? <img src={src} alt="" width={48} height={48} /> : null}
                <span className="search-overlay__result-text">
                  <span className="search-overlay__result-title">{result.title}</span>
                  {result.subtitle ? <span className="search-overlay__result-subtitle">{result.subtitle}</span> : null}
                </span>
              </div>
            );
          })}
        </div>
        <p role="status" className={failure ? 'search-overlay__failure' : 'visually-hidden'}>
          {failure
            ? `${failure.title}. ${failure.hint}`
            : showStatus
              ? results.length > 0
                ? `${String(results.length)} suggestions`
                : 'No suggestions'
              : ''}
        </p>
      </div>
    </div>
  );
}
