import { DiscountProgramsPage } from '../../../features/account';

export function Component() {
  return <DiscountProgramsPage />;
}
