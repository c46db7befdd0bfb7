import '../catalogue.css';
import { useId, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { Breadcrumbs, PageMeta } from '../../content';
import { canAddToCart, cartLineFor, cartOptions } from '../logic/cart-line';
import { choose, initialSku, optionSelects, selectionOf, skuFor } from '../logic/options';
import type { Image, ProductPage as ProductPageData, ProductSku } from '../types';
import { AddToCartButton } from '../../cart';
import { OptionSelects } from './option-selects';
import { Price } from './price';
import { ProductImages } from './product-images';
import {
  AboutSection,
  AddOns,
  Compatibility,
  MoreDetails,
  ProductTabs,
  PromoVideoSection,
  RelatedProducts,
} from './product-sections';
import { StockAlertForm } from './stock-alert-form';

export const PRODUCT_DISPLAY_TYPES = ['product-short-alt', 'product-short', 'product-long'] as const;
export type ProductDisplayType = (typeof PRODUCT_DISPLAY_TYPES)[number];

/** The layout of a product page: its `display_type`, product-short-alt when null or unknown. */
export function productDisplayType(value: string | null): ProductDisplayType {
  return PRODUCT_DISPLAY_TYPES.find((type) => type === value) ?? 'product-short-alt';
}

/** The URL parameter that holds the selected sku, so a variant can be linked. */
export const SKU_PARAM = 'sku';

/** The images of the selected sku, then the product's gallery (no duplicates). */
export function imagesFor(product: ProductPageData, sku: ProductSku | undefined): Image[] {
  const skuImages = sku ? (sku.imageLibrary.length > 0 ? sku.imageLibrary : [sku.imgUrl]) : [];
  const all = [...skuImages, ...product.imageLibrary];
  const images = all.filter((image, index) => image.src && all.findIndex((other) => other.src === image.src) === index);
  return images.length > 0 ? images : [product.imgUrl];
}

interface ProductPageProps {
  product: ProductPageData;
  /** The third-party reviews widget (summary under the title, the list at the end); optional. */
  reviews?: (kind: 'summary' | 'list') => ReactNode;
}

/**
 * A product page (spec: shopping §2). The selected sku lives in `?sku=`; the option selects
 * cascade, and the sku drives the price, the stock (Add to Cart or the back-in-stock form) and
 * the images. A new title has no `?sku=`, so the selection starts over.
 */
export function ProductPage({ product, reviews }: ProductPageProps) {
  const type = productDisplayType(product.displayType);
  const [params, setParams] = useSearchParams();
  const [chosenAddOns, setChosenAddOns] = useState<ReadonlySet<number>>(() => new Set());
  const sku = initialSku(product, params.get(SKU_PARAM));
  const selection = sku ? selectionOf(product.skus, sku) : [];
  const selects = product.noVariants ? [] : optionSelects(product.skus, selection);
  const addOns = product.addOns.filter((addOn) => chosenAddOns.has(addOn.id));

  const onChoose = (index: number, value: string) => {
    const next = skuFor(product.skus, choose(product.skus, selection, index, value));
    if (!next) return;
    const nextParams = new URLSearchParams(params);
    nextParams.set(SKU_PARAM, next.sku);
    setParams(nextParams, { replace: true, preventScrollReset: true });
  };

  return (
    <div className={`page product-page product-page--${type}`}>
      <PageMeta title={product.title} metaData={product.metaData} />
      <Breadcrumbs items={product.breadcrumbs} />
      <div className="product-page__top">
        <ProductImages
          key={sku?.sku ?? ''}
          images={imagesFor(product, sku)}
          layout={type === 'product-short-alt' ? 'ribbon' : 'gallery'}
          title={product.title}
        />
        <div className="product-page__info">
          <h1 className="product-page__title">{product.title || 'Product'}</h1>
          {product.subtitle ? <p className="product-page__subtitle">{product.subtitle}</p> : null}
          {reviews?.('summary')}
          <OptionSelects selects={selects} colorOptions={product.colorOptions} onChoose={onChoose} />
          <Compatibility groups={product.compatibilityOptions} />
          <AddOns
            addOns={product.addOns}
            chosen={chosenAddOns}
            onToggle={(id) => {
              setChosenAddOns((current) => {
                const next = new Set(current);
                if (next.has(id)) next.delete(id);
                else next.add(id);
                return next;
              });
            }}
          />
          {sku ? (
            <div className="product-page__price" role="group" aria-label="Price" aria-live="polite" aria-atomic="true">
              <Price sku={sku} />
            </div>
          ) : null}
          {sku && canAddToCart(sku) ? (
            <AddToCartButton line={cartLineFor({ product, sku, addOns })} className="button product-page__add">
              Add to Cart
            </AddToCartButton>
          ) : sku?.inStock ? (
            <NotYetPriced />
          ) : null}
          <StockAlertForm
            productName={product.title}
            sku={sku && !sku.inStock ? sku.sku : null}
            options={sku ? cartOptions(sku) : []}
            preload={product.skus.some((candidate) => !candidate.inStock)}
          />
        </div>
      </div>
      <ProductTabs product={product} />
      <PromoVideoSection videos={product.promoVideos} />
      <MoreDetails items={product.moreDetails} />
      {type === 'product-long' && product.about ? <AboutSection about={product.about} /> : null}
      <RelatedProducts products={product.relatedProducts} />
      {reviews ? (
        <section className="product-reviews" aria-label="Product reviews">
          <h2>Reviews</h2>
          {reviews('list')}
        </section>
      ) : null}
    </div>
  );
}

/**
 * An in-stock sku priced 0 reads 'Coming Soon' (spec): Add to Cart is there but disabled, and says
 * why. No back-in-stock form: the sku is in stock, so such an alert would never fire (a deliberate
 * difference, web/e2e/SPEC-COVERAGE.md).
 */
export const NOT_YET_PRICED = 'This item is not priced yet, so it cannot be added to the cart. Please check back soon.';

function NotYetPriced() {
  const whyId = useId();
  return (
    <>
      <button type="button" className="button product-page__add" disabled aria-describedby={whyId}>
        Add to Cart
      </button>
      <p id={whyId} className="product-page__why">
        {NOT_YET_PRICED}
      </p>
    </>
  );
}

/** The empty product of a failed load (spec: product load failure: the empty default). */
export function emptyProduct(title: string): ProductPageData {
  return {
    id: 0,
    documentId: '',
    productId: '',
    title,
    subtitle: '',
    url: '',
    displayType: null,
    breadcrumbs: [],
    imgUrl: { src: '', alt: '' },
    imageLibrary: [],
    description: [],
    techSpecs: [],
    about: null,
    addOns: [],
    moreDetails: [],
    promoVideos: null,
    colorOptions: [],
    compatibilityOptions: [],
    filterTags: [],
    fflItem: false,
    receiverItem: false,
    skus: [],
    noVariants: false,
    displayedSku: null,
    relatedProducts: [],
  };
}
