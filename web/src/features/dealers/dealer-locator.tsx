import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { DealerCard } from '../../api/types';
import { PageMeta, pageQuery } from '../content';
import { errorMessage, isApiError } from '../../lib/api';
import { safeHref } from '../../lib/safe-url';
import { DealerMap } from './dealer-map';
import { hasPlaceOnMap } from './places';
import { GEOCODING_FAILED, searchFromParams, searchToParams, type DealerSearch } from './locator-search';
import { dealersQuery } from './queries';
import { DealerSearchForm } from './search-form';
import './dealers.css';

/**
 * The dealer locator (spec "Dealer Locator"): heading, the zip and radius search, the 'Dealer'
 * list and the map, kept in sync (choosing a dealer in either opens its info window), and the
 * dealer-signup link. The search lives in the URL (`?zip=&radius=`).
 */
export function DealerLocator() {
  const [params, setParams] = useSearchParams();
  const search = searchFromParams(params);
  const { data, error, isPending } = useQuery({
    ...dealersQuery(search),
    placeholderData: keepPreviousData,
    retryOnMount: false,
  });
  const [selection, setSelection] = useState<{ key: string; id: string | null }>({ key: '', id: null });
  const searchKey = `${search.zip}:${String(search.radius)}`;
  // a new search clears the selection
  const selectedId = selection.key === searchKey ? selection.id : null;
  const select = (id: string | null) => {
    setSelection({ key: searchKey, id });
  };
  const listId = useId();

  const failed = error !== null;
  const dealers: readonly DealerCard[] = failed ? [] : (data?.dealers ?? []).filter(hasPlaceOnMap);
  const center = failed ? null : (data?.center ?? null);
  // the texts come with the dealers; after a failed search, from the content page itself
  const { data: page } = useQuery({ ...pageQuery('dealerlocator'), enabled: failed && data === undefined });
  const texts = data ?? page;
  const heading = texts?.heading || 'Dealer Locator';

  const onSearch = (next: DealerSearch) => {
    setParams(searchToParams(next));
  };

  return (
    <div className="page page--dealer-locator">
      {/* the page's title, description and social tags come from its content's metaData */}
      <PageMeta metaData={texts?.metaData ?? undefined} />
      <h1>{heading}</h1>
      <div className="dealer-locator">
        <div className="dealer-locator__side">
          <DealerSearchForm key={searchKey} initial={search} onSearch={onSearch} />
          {failed ? (
            <p className="dealer-locator__error" role="alert">
              {isApiError(error) && error.status === 404 ? GEOCODING_FAILED : errorMessage(error)}
            </p>
          ) : null}
          <h2 id={listId}>Dealer</h2>
          {isPending ? <p role="status">Loading dealers…</p> : null}
          {!isPending && !failed && dealers.length === 0 ? (
            <p role="status">
              No dealers found within {search.radius} miles of {search.zip}.
            </p>
          ) : null}
          <ul className="dealer-list" aria-labelledby={listId}>
            {dealers.map((dealer) => (
              <DealerListItem
                key={dealer.id}
                dealer={dealer}
                selected={dealer.id === selectedId}
                onSelect={() => {
                  select(dealer.id);
                }}
              />
            ))}
          </ul>
        </div>
        <DealerMap dealers={dealers} center={center} selectedId={selectedId} onSelect={select} />
      </div>
      <DealerSignup text={texts?.dealerSignup} link={texts?.dealerSignupLink} />
    </div>
  );
}

function DealerListItem({
  dealer,
  selected,
  onSelect,
}: {
  dealer: DealerCard;
  selected: boolean;
  onSelect: () => void;
}) {
  const tel = dealer.phoneNumber ? safeHref(`tel:${dealer.phoneNumber.replace(/[^\d+]/g, '')}`) : null;
  return (
    <li className={selected ? 'dealer-list__item dealer-list__item--selected' : 'dealer-list__item'}>
      <button type="button" className="dealer-list__name" aria-pressed={selected} onClick={onSelect}>
        {dealer.id}
      </button>
      {tel ? <a href={tel}>{dealer.phoneNumber}</a> : null}
      {dealer.address1 ? <span>{dealer.address1}</span> : null}
      {dealer.address2 ? <span>{dealer.address2}</span> : null}
      {dealer.distanceMiles !== undefined ? (
        <span className="dealer-list__distance">{dealer.distanceMiles.toFixed(1)} miles</span>
      ) : null}
    </li>
  );
}

function DealerSignup({
  text,
  link,
}: {
  text: string | null | undefined;
  link: { label: string; url: string } | null | undefined;
}) {
  const to = link?.url && link.url.startsWith('/') && !link.url.startsWith('//') ? link.url : '/dealer-registration';
  return (
    <section className="dealer-signup" aria-label="Become a dealer">
      {text ? <p>{text}</p> : null}
      <Link className="button" to={to}>
        {link?.label || 'Become a dealer'}
      </Link>
    </section>
  );
}
