import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import type { Order, OrderItem } from '../../../api/types';
import { safeHref } from '../../../lib/safe-url';
import { isExternalHref } from '../../../lib/paths';
import { PageMeta } from '../../content';
import { formatMoney } from '../format';
import { orderQuery } from '../queries';

/** The sum of the lines' prices (spec: Subtotal). */
export function itemsSubtotal(items: readonly Pick<OrderItem, 'price'>[]): number {
  return Math.round(items.reduce((sum, item) => sum + item.price, 0) * 100) / 100;
}

/** Order details: the lines (Product, Price, QTY, Total) and Subtotal, Shipping, Tax, Total. */
export function OrderDetailsPage() {
  const { id = '' } = useParams();
  const order = useQuery(orderQuery(id));
  const title = `Order ${id}`;
  return (
    <div className="page account-page">
      <PageMeta title={title} />
      <h1>{title}</h1>
      {order.data ? (
        <OrderDetails order={order.data} />
      ) : order.isError ? (
        <p role="alert">This order could not be loaded.</p>
      ) : (
        <p role="status">Loading…</p>
      )}
    </div>
  );
}

function OrderDetails({ order }: { order: Order }) {
  return (
    <>
      <table className="account-table order-lines">
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col" className="hide-on-mobile">
              Price
            </th>
            <th scope="col">QTY</th>
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((item) => (
            <tr key={item.id}>
              <td>
                <ProductLink item={item} />
                {item.options.length > 0 ? (
                  <div className="order-lines__options">{item.options.join(' - ')}</div>
                ) : null}
              </td>
              <td className="hide-on-mobile">{formatMoney(item.unitPrice)}</td>
              <td>{item.quantity}</td>
              <td>{formatMoney(item.price)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="order-summary">
        <div>
          <dt>Subtotal</dt>
          <dd>{formatMoney(itemsSubtotal(order.items))}</dd>
        </div>
        <div>
          <dt>Shipping</dt>
          <dd>{order.shippingCost > 0 ? formatMoney(order.shippingCost) : 'Free'}</dd>
        </div>
        <div>
          <dt>Tax</dt>
          <dd>{formatMoney(order.taxAmount)}</dd>
        </div>
        <div className="order-summary__total">
          <dt>Total</dt>
          <dd>{formatMoney(order.totalAmount)}</dd>
        </div>
      </dl>
    </>
  );
}

function ProductLink({ item }: { item: OrderItem }) {
  const href = safeHref(item.productUrl);
  if (!href) return <span>{item.productName}</span>;
  return isExternalHref(href) ? <a href={href}>{item.productName}</a> : <Link to={href}>{item.productName}</Link>;
}
