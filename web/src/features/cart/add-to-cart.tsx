import { lazy, Suspense } from 'react';
import { useHydrated } from '../../lib/use-hydrated';
import type { AddToCartButtonProps } from './components/add-to-cart-button';

/*
 * The add-to-cart machinery (the mutation, the line rules, the serialised sync) loads with the
 * first page that offers an add button, not with the frame: the header only needs the count.
 */
const LazyAddToCartButton = lazy(() =>
  import('./components/add-to-cart-button').then((module) => ({ default: module.AddToCartButton })),
);

/**
 * An add-to-cart button; disabled for the moment its code takes to load. The server renders it
 * disabled too, and hydration keeps it so: a server-rendered working button would stay inert
 * until the lazy chunk arrived after hydration, and a tap on it in between did nothing at all.
 */
export function AddToCartButton(props: AddToCartButtonProps) {
  const hydrated = useHydrated();
  const fallback = (
    <button type="button" className={props.className ?? 'button'} aria-label={props.label} disabled>
      {props.children}
    </button>
  );
  if (!hydrated) return fallback;
  return (
    <Suspense fallback={fallback}>
      <LazyAddToCartButton {...props} />
    </Suspense>
  );
}
