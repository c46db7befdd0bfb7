import { Link } from 'react-router';
import type { Order } from '../../../api/types';
import { formatOrderDate } from '../dates';
import { formatMoney } from '../format';
import { AccountPage } from './account-page';

/** My Orders: a table (Order, Date, Payment Status, Total) and, on small screens, cards. */
export function OrdersPage() {
  return <AccountPage title="My Orders">{(profile) => <Orders orders={profile.orders} />}</AccountPage>;
}

function Orders({ orders }: { orders: Order[] }) {
  if (orders.length === 0) return <p className="account-empty">You have placed no orders</p>;
  return (
    <>
      <table className="account-table orders-table">
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Date</th>
            <th scope="col">Payment Status</th>
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <tr key={order.id}>
              <th scope="row">
                <OrderLink id={order.id} />
              </th>
              <td>{formatOrderDate(order.createdAt)}</td>
              <td>{order.status}</td>
              <td>{formatMoney(order.totalAmount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="order-cards">
        {orders.map((order) => (
          <li key={order.id} className="account-card">
            <dl>
              <div>
                <dt>Order</dt>
                <dd>
                  <OrderLink id={order.id} />
                </dd>
              </div>
              <div>
                <dt>Date</dt>
                <dd>{formatOrderDate(order.createdAt)}</dd>
              </div>
              <div>
                <dt>Payment Status</dt>
                <dd>{order.status}</dd>
              </div>
              <div>
                <dt>Total</dt>
                <dd>{formatMoney(order.totalAmount)}</dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
    </>
  );
}

function OrderLink({ id }: { id: number }) {
  return <Link to={`/profile/orders/${String(id)}`}>{id}</Link>;
}
