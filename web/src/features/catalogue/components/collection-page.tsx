import '../catalogue.css';
import { useId, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { AppLink } from '../../../components/ui/app-link';
import { BackdropImage } from '../../../components/ui/backdrop-image';
import { safeImageSrc } from '../../../lib/safe-url';
import { Breadcrumbs, PageMeta } from '../../content';
import { activeTab, paramsForTab, productsForTab, tabsOf } from '../logic/collection-filters';
import type { Collection, PromoCard } from '../types';
import { FilterableGrid } from './filterable-grid';
import { ProductGrid } from './product-card';
import { Tabs } from './tabs';

export const COLLECTION_DISPLAY_TYPES = [
  'collection-simple-grid',
  'collection-tabbed-grid',
  'collection-cards',
  'collection-filterable-grid',
] as const;
export type CollectionDisplayType = (typeof COLLECTION_DISPLAY_TYPES)[number];

/** The layout of a collection: its `display_type`, the simple grid when null or unknown. */
export function collectionDisplayType(value: string | null): CollectionDisplayType {
  return COLLECTION_DISPLAY_TYPES.find((type) => type === value) ?? 'collection-simple-grid';
}

/** A collection page: breadcrumbs, the banner with the background image, then one layout per display type. */
export function CollectionPage({ collection }: { collection: Collection }) {
  const type = collectionDisplayType(collection.displayType);
  const background = safeImageSrc(collection.backgroundImage.src);
  return (
    <div className={`page collection-page collection-page--${type}`}>
      <PageMeta title={collection.title} metaData={collection.metaData} />
      <Breadcrumbs items={collection.breadcrumbs} />
      <header className="collection-page__banner has-backdrop">
        <BackdropImage src={background} priority />
        <h1>{collection.title}</h1>
        {collection.subtitle ? <p className="collection-page__subtitle">{collection.subtitle}</p> : null}
      </header>
      <CollectionLayout type={type} collection={collection} />
    </div>
  );
}

function CollectionLayout({ type, collection }: { type: CollectionDisplayType; collection: Collection }): ReactNode {
  switch (type) {
    case 'collection-tabbed-grid':
      return <TabbedGrid collection={collection} />;
    case 'collection-cards':
      return <CardsLayout collection={collection} />;
    case 'collection-filterable-grid':
      return <FilterableGrid collection={collection} />;
    case 'collection-simple-grid':
      return <ProductGrid firstScreen products={collection.products} label={`${collection.title} products`} />;
  }
}

/** Tabs 'All' plus the first filter's values; the tab lives in `?activeFilter=` (history keeps it). */
function TabbedGrid({ collection }: { collection: Collection }) {
  const [params, setParams] = useSearchParams();
  const tabs = tabsOf(collection.filterCategories);
  const selected = activeTab(params, collection.filterCategories);
  const products = productsForTab(collection.products, collection.filterCategories, selected);
  return (
    <Tabs
      label={collection.filterCategories[0]?.title ?? collection.title}
      tabs={tabs}
      selected={selected}
      className="collection-tabs"
      onSelect={(tab) => {
        if (tab !== selected) setParams(paramsForTab(params, tab), { preventScrollReset: true });
      }}
    >
      {products.length > 0 ? (
        <ProductGrid firstScreen products={products} label={`${collection.title}: ${selected}`} />
      ) : (
        <p className="collection-page__empty">No items found</p>
      )}
    </Tabs>
  );
}

/** The promo cards, then the products with '(FFL Required to ship)' on FFL items. */
function CardsLayout({ collection }: { collection: Collection }) {
  const promosId = useId();
  return (
    <>
      {collection.promoCards.length > 0 ? (
        <section className="promo-cards" aria-labelledby={promosId}>
          <h2 id={promosId} className="visually-hidden">
            Featured
          </h2>
          <ul className="promo-cards__list">
            {collection.promoCards.map((card) => (
              <li key={`${card.title}-${card.url}`}>
                <PromoCardView card={card} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <ProductGrid firstScreen products={collection.products} label={`${collection.title} products`} showFfl />
    </>
  );
}

function PromoCardView({ card }: { card: PromoCard }) {
  const image = safeImageSrc(card.image.src);
  return (
    <article className="promo-card">
      {image ? (
        <img src={image} alt={card.image.alt} className="promo-card__image" loading="lazy" decoding="async" />
      ) : null}
      <div className="promo-card__body">
        <h3 className="promo-card__title">{card.title}</h3>
        {card.subtitle ? <p>{card.subtitle}</p> : null}
        <AppLink to={card.url} className="button" aria-label={`${card.buttonLabel || 'Shop Now'}: ${card.title}`}>
          {card.buttonLabel || 'Shop Now'}
        </AppLink>
      </div>
    </article>
  );
}

/** The empty collection of a failed load: its title from the URL, no products. */
export function emptyCollection(title: string): Collection {
  return {
    id: 0,
    documentId: '',
    title,
    subtitle: '',
    displayType: null,
    backgroundImage: { src: '', alt: '' },
    breadcrumbs: [],
    filterCategories: [],
    promoCards: [],
    products: [],
  };
}
