import { lazy, Suspense, useEffect } from 'react';
import { useAfterFirstScreen } from '../../../lib/idle';
import type { CartOption } from '../types';
import { STOCK_ALERT_TITLE } from './stock-alert-title';

// react-hook-form, zod and the captcha are a form's weight: they load after the first screen, in
// a chunk of their own, so a product page hydrates without them
const loadFields = () => import('./stock-alert-fields');
const StockAlertFields = lazy(loadFields);

/** What shows until the form's code has loaded: its heading, in the form's place. */
function StockAlertPlaceholder() {
  return (
    <section className="stock-alert" aria-busy="true">
      <h2 className="stock-alert__title">{STOCK_ALERT_TITLE}</h2>
    </section>
  );
}

interface StockAlertFormProps {
  productName: string;
  /** The selected sku's code when it is out of stock, else null (no form). */
  sku: string | null;
  options: CartOption[];
  /** Some sku of the product is out of stock: load the form's code after the first screen. */
  preload: boolean;
}

/**
 * The slot of the back-in-stock form. Its Suspense boundary is always rendered, so a change of
 * sku (a router transition) keeps the page as it was until the form's code is in, instead of
 * flashing the placeholder. When the product has an out-of-stock sku, the code loads after the
 * first screen anyway, so choosing that sku shows the form at once.
 */
export function StockAlertForm({ productName, sku, options, preload }: StockAlertFormProps) {
  const later = useAfterFirstScreen();
  useEffect(() => {
    if (later && preload) void loadFields();
  }, [later, preload]);
  let content = null;
  if (sku !== null) {
    content = later ? (
      <StockAlertFields key={sku} productName={productName} sku={sku} options={options} />
    ) : (
      <StockAlertPlaceholder />
    );
  }
  return <Suspense fallback={<StockAlertPlaceholder />}>{content}</Suspense>;
}
