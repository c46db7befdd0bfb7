import type { ReactNode } from 'react';
import type { NewCartItem } from '../../../api/types';
import { useAddToCart } from '../use-add-to-cart';

export interface AddToCartButtonProps {
  line: NewCartItem;
  children: ReactNode;
  className?: string;
  /** The button's accessible name when its text is not enough (the cards' '+'). */
  label?: string;
}

/** Adds a line to the cart through the cart's mutation (it opens the drawer and announces the result). */
export function AddToCartButton({ line, children, className, label }: AddToCartButtonProps) {
  const addToCart = useAddToCart();
  return (
    <button
      type="button"
      className={className ?? 'button'}
      aria-label={label}
      onClick={() => {
        addToCart.mutate(line);
      }}
    >
      {children}
    </button>
  );
}
