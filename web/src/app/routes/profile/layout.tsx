import { AccountLayout, accountLoader } from '../../../features/account';

export const loader = accountLoader;

export function Component() {
  return <AccountLayout />;
}
