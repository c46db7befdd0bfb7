import { ProDealPage } from '../../../features/account';

export function Component() {
  return <ProDealPage />;
}
