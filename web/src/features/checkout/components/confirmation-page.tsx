import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Order } from '../../../api/types';
import { isApiError } from '../../../lib/api';
import { PageMeta } from '../../content';
import { orderQuery } from '../api';
import { ORDER_RECEIVED } from '../messages';
import { formatMoney, formatShipping } from '../money';
import '../checkout.css';

/** The order confirmation (`/confirm/{orderId}`, spec section 2), for guests and signed-in shoppers. */
export function ConfirmationPage({ orderId }: { orderId: string }) {
  const order = useQuery(orderQuery(orderId));

  if (order.isPending) {
    return (
      <div className="page confirmation">
        <PageMeta />
        <p role="status">Loading your order…</p>
      </div>
    );
  }
  if (order.isError) {
    const notFound = isApiError(order.error) && (order.error.status === 404 || order.error.status === 400);
    return (
      <div className="page confirmation">
        <PageMeta title={notFound ? 'Order not found' : 'Order Confirmation'} />
        <h1>{notFound ? 'Order not found' : 'Your order could not be loaded'}</h1>
        <p>
          {notFound
            ? `We could not find order ${orderId}. Check the link in your confirmation email.`
            : 'Please try again in a moment.'}
        </p>
        <Link to="/" className="button">
          Continue shopping
        </Link>
      </div>
    );
  }
  return <OrderConfirmation order={order.data} />;
}

function OrderConfirmation({ order }: { order: Order }) {
  const hasFfl = order.items.some((item) => item.isFflItem);
  const allFfl = order.items.length > 0 && order.items.every((item) => item.isFflItem);
  const subtotal = order.items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0);
  return (
    <div className="page confirmation">
      <PageMeta />
      <h1>{ORDER_RECEIVED}</h1>
      <p className="confirmation__number">
        Order Number: <strong>{order.id}</strong>
      </p>
      <p>Thank you for shopping with us: a confirmation email was sent to {order.userEmail}</p>
      <div className="confirmation__addresses">
        {allFfl ? null : (
          <section aria-labelledby="confirmation-shipping">
            <h2 id="confirmation-shipping">Shipping Address</h2>
            <address>
              {order.shippingName}
              <br />
              {order.address}
              <br />
              {order.city}, {order.state} {order.zipCode}
              <br />
              {order.country}
            </address>
          </section>
        )}
        {hasFfl ? (
          <section aria-labelledby="confirmation-dealer">
            <h2 id="confirmation-dealer">Dealer Address</h2>
            <address>
              {order.dealerName}
              <br />
              {order.dealerAddress}
              <br />
              {order.dealerCity}, {order.dealerState} {order.dealerZip}
              <br />
              {order.dealerPhone}
            </address>
          </section>
        ) : null}
      </div>
      <table className="confirmation__items">
        <caption className="visually-hidden">Items in your order</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Quantity</th>
            <th scope="col">Unit Price</th>
            <th scope="col">Price</th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((item) => (
            <tr key={item.id}>
              <th scope="row">
                {item.productUrl ? <Link to={item.productUrl}>{item.productName}</Link> : item.productName}
                {item.options.length > 0 ? (
                  <span className="confirmation__options">{item.options.join(' / ')}</span>
                ) : null}
              </th>
              <td>{item.quantity}</td>
              <td>{formatMoney(item.unitPrice)}</td>
              <td>{formatMoney(item.unitPrice * item.quantity)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="confirmation__totals">
        <dt>Subtotal</dt>
        <dd>{formatMoney(subtotal)}</dd>
        <dt>Shipping</dt>
        <dd>{formatShipping(order.shippingCost)}</dd>
        {order.discountAmount > 0 ? (
          <>
            <dt>Discount Applied</dt>
            <dd>-{formatMoney(order.discountAmount)}</dd>
          </>
        ) : null}
        <dt>Tax</dt>
        <dd>{formatMoney(order.taxAmount)}</dd>
        <dt className="confirmation__total">Total</dt>
        <dd className="confirmation__total">{formatMoney(order.totalAmount)}</dd>
      </dl>
      <Link to="/" className="button">
        Continue shopping
      </Link>
    </div>
  );
}
