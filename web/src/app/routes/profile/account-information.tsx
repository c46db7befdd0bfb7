import { AccountInformationPage } from '../../../features/account';

export function Component() {
  return <AccountInformationPage title="Account Information" />;
}
