import { useEffect, useId, useRef, useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { SearchIcon } from '../../../components/ui/icons';
import { paths } from '../../../lib/paths';

/** A submitted search needs more than one character (spec constants). */
export const MIN_SEARCH_LENGTH = 2;

/**
 * The header search: a toggle that reveals a search form. The full overlay with suggestions and
 * keyboard navigation replaces this later.
 */
export function SearchToggle() {
  const [open, setOpen] = useState(false);
  const formId = useId();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const navigate = useNavigate();

  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open]);

  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const query = inputRef.current?.value.trim() ?? '';
    if (query.length < MIN_SEARCH_LENGTH) return;
    setOpen(false);
    void navigate(paths.search(query));
  };

  return (
    <div className="search-toggle">
      <button
        ref={buttonRef}
        type="button"
        className="icon-button"
        aria-expanded={open}
        aria-controls={formId}
        aria-label="Search"
        onClick={() => {
          setOpen((value) => !value);
        }}
      >
        <SearchIcon />
      </button>
      <form
        id={formId}
        role="search"
        className="search-toggle__form"
        hidden={!open}
        onSubmit={onSubmit}
      >
        <label htmlFor={inputId} className="visually-hidden">
          Search products
        </label>
        <input
          ref={inputRef}
          onKeyDown={(event) => {
            if (event.key === 'Escape') close();
          }}
          id={inputId}
          type="search"
          name="q"
          placeholder="SEARCH"
          autoComplete="off"
        />
        <button type="submit">Search</button>
      </form>
    </div>
  );
}
