import { useParams } from 'react-router';
import { VerifyPage } from '../../features/account';

/** `/Newsletter/verify/:token`: the newsletter's e-mail verification link. */
export function Component() {
  const { token = '' } = useParams();
  return <VerifyPage kind="email" target="newsletter" token={token} />;
}
