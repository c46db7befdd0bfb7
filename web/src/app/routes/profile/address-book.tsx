import { AddressBookPage } from '../../../features/account';

export function Component() {
  return <AddressBookPage />;
}
