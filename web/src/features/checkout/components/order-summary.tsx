import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { Cart } from '../../../api/types';
import { shippingMethodsQuery } from '../api';
import { formatMoney, formatShipping } from '../money';
import { allFflItems, hasFflItems } from '../restrictions';
import type { BillingForm, DealerForm } from '../schemas';
import { safeImageSrc } from '../../../lib/safe-url';

interface OrderSummaryProps {
  cart: Cart;
  /** On the payment step: the saved forms, for the totals, addresses and shipping method. */
  review?: { billing: BillingForm; dealer: DealerForm | null } | undefined;
}

export function itemsInCartLabel(cart: Pick<Cart, 'items'>): string {
  const count = cart.items.reduce((sum, item) => sum + item.quantity, 0);
  return `${String(count)} Item(s) in Cart`;
}

/** The side order summary of both steps (spec section 2). */
export function OrderSummary({ cart, review }: OrderSummaryProps) {
  const [open, setOpen] = useState(true);
  const listId = useId();
  return (
    <aside className="order-summary" aria-label="Order summary">
      <h2 className="order-summary__heading">
        <button
          type="button"
          className="order-summary__toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => {
            setOpen((value) => !value);
          }}
        >
          {itemsInCartLabel(cart)}
        </button>
      </h2>
      <ul id={listId} className="order-summary__items" hidden={!open}>
        {cart.items.map((item) => (
          <li key={item.id} className="order-summary__item">
            <ItemImage url={item.imageUrl} />
            <div>
              <p className="order-summary__name">{item.productName}</p>
              {item.options.map((option) => (
                <p key={option.label} className="order-summary__option">
                  {option.label}: {option.value}
                </p>
              ))}
              <p className="order-summary__option">
                Qty: {item.quantity} × {formatMoney(item.productPrice)}
              </p>
            </div>
          </li>
        ))}
      </ul>
      {review ? <Review cart={cart} billing={review.billing} dealer={review.dealer} /> : null}
    </aside>
  );
}

function Review({ cart, billing, dealer }: { cart: Cart; billing: BillingForm; dealer: DealerForm | null }) {
  const methods = useQuery(shippingMethodsQuery);
  const method = methods.data?.find((candidate) => String(candidate.id) === billing.shippingMethodId);
  const shipTo = billing.shippingSameAsBilling ? billing.billing : billing.shipping;
  const shipping = [
    `${shipTo.firstName} ${shipTo.lastName}`,
    shipTo.street,
    `${shipTo.city}, ${shipTo.state} ${shipTo.zip}`,
  ];
  return (
    <>
      <dl className="order-summary__totals">
        <dt>Subtotal</dt>
        <dd>{formatMoney(cart.subTotal)}</dd>
        <dt>Shipping</dt>
        <dd>{formatShipping(cart.shipping)}</dd>
        <dt>Product Discount</dt>
        <dd>{formatMoney(cart.discountAmount)}</dd>
        <dt>Sales Tax</dt>
        <dd>{formatMoney(cart.taxAmount)}</dd>
        <dt className="order-summary__total">Order Total</dt>
        <dd className="order-summary__total">{formatMoney(cart.totalAmount)}</dd>
      </dl>
      {allFflItems(cart.items) ? null : (
        <section className="order-summary__section" aria-label="Ship to">
          <h3>Ship To</h3>
          <address>
            {shipping.map((line) => (
              <span key={line}>
                {line}
                <br />
              </span>
            ))}
          </address>
        </section>
      )}
      {dealer && hasFflItems(cart.items) ? (
        <section className="order-summary__section" aria-label="Dealer">
          <h3>Dealer</h3>
          <address>
            {dealer.name}
            <br />
            {dealer.street}
            <br />
            {dealer.city}, {dealer.state} {dealer.zip}
          </address>
        </section>
      ) : null}
      <section className="order-summary__section" aria-label="Shipping method">
        <h3>Shipping Method</h3>
        <p>{method ? `${method.name}: ${formatShipping(method.price)}` : '—'}</p>
      </section>
    </>
  );
}

/** A line's picture, when its URL (from the commerce API) is a safe image source. */
function ItemImage({ url }: { url: string | null | undefined }) {
  const src = safeImageSrc(url);
  return src ? (
    <img src={src} alt="" width={64} height={64} />
  ) : (
    <span className="order-summary__image" aria-hidden="true" />
  );
}
