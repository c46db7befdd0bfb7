import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import type { Cart } from '../../../api/types';
import { Dialog } from '../../../components/ui/dialog';
import { paths } from '../../../lib/paths';
import { useStore } from '../../../lib/store';
import { cartAnnouncementStore } from '../feedback';
import { closeCartDrawer, cartQuery } from '../queries';
import { CartLine } from './cart-line';
import { CartTotals } from './cart-totals';
import { PromoCodeForm } from './promo-code-form';

/**
 * The cart drawer: a modal dialog named Cart (focus kept inside, Escape and a click on the
 * overlay close it, focus returns to what opened it). Lines, totals, the promo code, checkout;
 * or the empty state with a way back to shopping.
 */
export default function CartDrawer() {
  const { data: cart, isError } = useQuery(cartQuery);
  // a message belongs to the visit of the drawer it was announced in
  useEffect(
    () => () => {
      cartAnnouncementStore.set(null);
    },
    [],
  );

  return (
    <Dialog title="Cart" onClose={closeCartDrawer} className="cart-drawer">
      <CartAnnouncements />
      {cart ? <CartContents cart={cart} /> : <p>{isError ? 'Your cart could not be loaded.' : 'Loading your cart…'}</p>}
    </Dialog>
  );
}

function CartContents({ cart }: { cart: Cart }) {
  if (cart.items.length === 0) {
    return (
      <div className="cart-drawer__empty">
        <p>Your cart is empty.</p>
        <Link className="button" to={paths.home()} onClick={closeCartDrawer}>
          Continue shopping
        </Link>
      </div>
    );
  }
  return (
    <>
      <ul className="cart-drawer__lines" aria-label="Items in your cart">
        {cart.items.map((line) => (
          <CartLine
            key={line.id}
            line={line}
            warning={cart.inventoryWarnings.find((warning) => warning.cartItemId === line.id)}
          />
        ))}
      </ul>
      <CartTotals cart={cart} />
      <PromoCodeForm cart={cart} />
      <Link className="button cart-drawer__checkout" to={paths.checkout()} onClick={closeCartDrawer}>
        Checkout
      </Link>
    </>
  );
}

/** The drawer's live regions: the page behind a modal dialog is inert, its banner unheard. */
function CartAnnouncements() {
  const announcement = useStore(cartAnnouncementStore);
  const isError = announcement?.type === 'error';
  const message = announcement ? (
    <p className={`cart-drawer__message cart-drawer__message--${announcement.type}`}>{announcement.message}</p>
  ) : null;
  return (
    <div className="cart-drawer__announcements">
      <div role="status">{isError ? null : message}</div>
      <div role="alert">{isError ? message : null}</div>
    </div>
  );
}
