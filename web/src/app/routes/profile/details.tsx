import { EditInformationPage } from '../../../features/account';

export function Component() {
  return <EditInformationPage />;
}
