import { OrderDetailsPage } from '../../../features/account';

export function Component() {
  return <OrderDetailsPage />;
}
