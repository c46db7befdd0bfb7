import { LeMilPage } from '../../../features/account';

export function Component() {
  return <LeMilPage />;
}
