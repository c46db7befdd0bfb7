import { OrdersPage } from '../../../features/account';

export function Component() {
  return <OrdersPage />;
}
