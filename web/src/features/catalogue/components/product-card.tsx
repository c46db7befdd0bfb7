import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths';
import { safeImageSrc } from '../../../lib/safe-url';
import { canAddToCart, cartLineFor } from '../logic/cart-line';
import { prefetchProduct } from '../queries';
import type { ProductCard as ProductCardData } from '../types';
import { AddToCartButton } from '../../cart';
import { Price } from './price';
import { PREFETCH_TITLE_ATTRIBUTE, useInViewPrefetch } from './use-in-view-prefetch';

/**
 * How a card's image loads: `lcp` for the first cards of a listing (likely the page's LCP
 * element: fetched first), `eager` for the rest of its first screen, `lazy` further down.
 */
export type CardImageLoading = 'lcp' | 'eager' | 'lazy';

/** The cards of a listing page whose images load at once; the first FIRST_SCREEN_LCP_CARDS of them first. */
export const FIRST_SCREEN_CARDS = 4;
export const FIRST_SCREEN_LCP_CARDS = 2;

const IMAGE_LOADING_ATTRIBUTES = {
  lcp: { fetchPriority: 'high' },
  eager: {},
  lazy: { loading: 'lazy', decoding: 'async' },
} as const;

/** The image loading of the card at `index` of a listing that is (or is not) the page's first screen. */
export function cardImageLoading(index: number, firstScreen: boolean): CardImageLoading {
  if (!firstScreen || index >= FIRST_SCREEN_CARDS) return 'lazy';
  return index < FIRST_SCREEN_LCP_CARDS ? 'lcp' : 'eager';
}

interface ProductCardProps {
  product: ProductCardData;
  /** Show '(FFL Required to ship)' on FFL items (the collection-cards display). */
  showFfl?: boolean;
  /** The title's heading level (h2 on a page of cards, h3 under a section heading). */
  headingLevel?: 2 | 3;
  imageLoading?: CardImageLoading;
}

/**
 * A product as collections, search results and related products show it: image, title, subtitle
 * and the displayed sku's price, linking to the product page opened on that sku (`?sku=`) (prefetched on hover, focus or
 * touchstart, and on touch devices when it enters the viewport: use-in-view-prefetch.ts), and a
 * quick '+' add-to-cart button when the product has no variants and is in stock.
 */
export function ProductCard({ product, showFfl = false, headingLevel = 2, imageLoading = 'lazy' }: ProductCardProps) {
  const queryClient = useQueryClient();
  const titleId = useId();
  const sku = product.skus.find((candidate) => candidate.sku === product.displayedSku) ?? product.skus[0];
  const image = safeImageSrc(product.imgUrl.src);
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const prefetch = () => {
    prefetchProduct(queryClient, product.title);
  };
  const quickAdd = product.noVariants && sku !== undefined && canAddToCart(sku);

  return (
    <article className="product-card" aria-labelledby={titleId}>
      <Link
        // opens on the sku whose price the card shows (issue 47)
        to={paths.product(product.title, sku?.sku)}
        className="product-card__link"
        onMouseEnter={prefetch}
        onFocus={prefetch}
        onTouchStart={prefetch}
        {...{ [PREFETCH_TITLE_ATTRIBUTE]: product.title }}
      >
        <span className="product-card__image">
          {image ? <img src={image} alt="" {...IMAGE_LOADING_ATTRIBUTES[imageLoading]} /> : null}
        </span>
        <Heading id={titleId} className="product-card__title">
          {product.title}
        </Heading>
      </Link>
      {product.subtitle ? <p className="product-card__subtitle">{product.subtitle}</p> : null}
      {showFfl && product.fflItem ? <p className="product-card__ffl">(FFL Required to ship)</p> : null}
      <div className="product-card__footer">
        <Price sku={sku} />
        {quickAdd ? (
          <AddToCartButton
            line={cartLineFor({ product, sku })}
            className="product-card__add icon-button"
            label={`Add ${product.title} to cart`}
          >
            <span aria-hidden="true">+</span>
          </AddToCartButton>
        ) : null}
      </div>
    </article>
  );
}

/**
 * Cards in a grid (a list, so its size is announced). `firstScreen`: the grid is what a listing
 * page (collection, search results) opens with, so its first cards' images load at once.
 */
export function ProductGrid({
  products,
  label,
  showFfl,
  headingLevel,
  firstScreen = false,
}: {
  products: readonly ProductCardData[];
  label: string;
  showFfl?: boolean;
  headingLevel?: 2 | 3;
  firstScreen?: boolean;
}) {
  const ref = useInViewPrefetch<HTMLUListElement>(products);
  return (
    <ul ref={ref} className="product-grid" aria-label={label}>
      {products.map((product, index) => (
        <li key={product.documentId || product.title}>
          <ProductCard
            product={product}
            showFfl={showFfl ?? false}
            headingLevel={headingLevel ?? 2}
            imageLoading={cardImageLoading(index, firstScreen)}
          />
        </li>
      ))}
    </ul>
  );
}
