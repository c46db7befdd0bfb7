import { lazy, Suspense } from 'react';
import { CartIcon } from '../../../components/ui/icons';
import { VisuallyHidden } from '../../../components/ui/visually-hidden';
import { openCartDrawer, useCartDrawerOpen, useCartItemCount } from '../queries';
import '../cart.css';

// the drawer's code loads the first time it opens
const loadDrawer = () => import('./cart-drawer');
const CartDrawer = lazy(loadDrawer);

/** The accessible name of the cart button: 'Cart, 3 items'. */
export function cartButtonLabel(count: number): string {
  return `Cart, ${String(count)} ${count === 1 ? 'item' : 'items'}`;
}

/**
 * The header's cart button: the item-count badge, and the cart drawer it opens (a modal dialog;
 * focus comes back here when it closes). Add-to-cart opens the same drawer.
 */
export function CartButton({ className }: { className?: string }) {
  const count = useCartItemCount();
  const open = useCartDrawerOpen();
  return (
    <>
      <button
        type="button"
        className={['icon-button', 'site-header__cart', className].filter(Boolean).join(' ')}
        aria-haspopup="dialog"
        onClick={openCartDrawer}
        // warm the drawer's chunk before the click lands
        onPointerEnter={() => void loadDrawer()}
        onFocus={() => void loadDrawer()}
      >
        <CartIcon />
        {count > 0 ? (
          <span className="site-header__badge" aria-hidden="true">
            {count > 99 ? '99+' : count}
          </span>
        ) : null}
        <VisuallyHidden>{cartButtonLabel(count)}</VisuallyHidden>
      </button>
      {open ? (
        <Suspense fallback={null}>
          <CartDrawer />
        </Suspense>
      ) : null}
    </>
  );
}
