import { UpdatePasswordPage } from '../../../features/account';

export function Component() {
  return <UpdatePasswordPage />;
}
