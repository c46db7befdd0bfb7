import { lazy, Suspense } from 'react';
import type { AddToCartButtonProps } from './components/add-to-cart-button';

/*
 * The add-to-cart machinery (the mutation, the line rules, the serialised sync) loads with the
 * first page that offers an add button, not with the frame: the header only needs the count.
 */
const LazyAddToCartButton = lazy(() =>
  import('./components/add-to-cart-button').then((module) => ({ default: module.AddToCartButton })),
);

/** An add-to-cart button; disabled for the moment its code takes to load. */
export function AddToCartButton(props: AddToCartButtonProps) {
  const fallback = (
    <button type="button" className={props.className ?? 'button'} aria-label={props.label} disabled>
      {props.children}
    </button>
  );
  return (
    <Suspense fallback={fallback}>
      <LazyAddToCartButton {...props} />
    </Suspense>
  );
}
