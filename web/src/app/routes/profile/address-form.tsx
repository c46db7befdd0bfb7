import { AddressFormPage } from '../../../features/account';

export function Component() {
  return <AddressFormPage />;
}
