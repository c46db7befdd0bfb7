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

interface ProductCardProps {
  product: ProductCardData;
  /** Show '(FFL Required to ship)' on FFL items (the collection-cards display). */
  showFfl?: boolean;
  /** The title's heading level (h2 on a page of cards, h3 under a section heading). */
  headingLevel?: 2 | 3;
}

/**
 * A product as collections, search results and related products show it: image, title, subtitle
 * and the displayed sku's price, linking to the product page (prefetched on hover or focus), and a
 * quick '+' add-to-cart button when the product has no variants and is in stock.
 */
export function ProductCard({ product, showFfl = false, headingLevel = 2 }: ProductCardProps) {
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
      <Link to={paths.product(product.title)} className="product-card__link" onMouseEnter={prefetch} onFocus={prefetch}>
        <span className="product-card__image">{image ? <img src={image} alt="" loading="lazy" /> : null}</span>
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

/** Cards in a grid (a list, so its size is announced). */
export function ProductGrid({
  products,
  label,
  showFfl,
  headingLevel,
}: {
  products: readonly ProductCardData[];
  label: string;
  showFfl?: boolean;
  headingLevel?: 2 | 3;
}) {
  return (
    <ul className="product-grid" aria-label={label}>
      {products.map((product) => (
        <li key={product.documentId || product.title}>
          <ProductCard product={product} showFfl={showFfl ?? false} headingLevel={headingLevel ?? 2} />
        </li>
      ))}
    </ul>
  );
}
