import { priceDisplay, type PricedSku } from '../logic/price';

interface PriceProps {
  sku: PricedSku | undefined;
  className?: string;
}

/**
 * A sku's price: the final price; when it is below the price, the original struck through and
 * '(N% off)'; 'Coming Soon' when the final price is 0 or less (spec: shopping §2).
 */
export function Price({ sku, className }: PriceProps) {
  if (!sku) return null;
  const display = priceDisplay(sku);
  const classes = ['price', className].filter(Boolean).join(' ');
  switch (display.kind) {
    case 'coming-soon':
      return (
        <p className={classes}>
          <span className="price__coming-soon">Coming Soon</span>
        </p>
      );
    case 'regular':
      return (
        <p className={classes}>
          <span className="price__final">{display.price}</span>
        </p>
      );
    case 'discounted':
      return (
        <p className={classes}>
          <span className="price__final">{display.price}</span>{' '}
          <s className="price__original">
            <span className="visually-hidden">Original price: </span>
            {display.original}
          </s>{' '}
          <span className="price__off">({display.percentOff}% off)</span>
        </p>
      );
  }
}
