import { useSearchParams } from 'react-router';
import { VerifyPage } from '../../features/account';

/** `/verify-email?token=`: the e-mail verification link (`&type=registration`: the registration variant). */
export function Component() {
  const [params] = useSearchParams();
  const kind = params.get('type') === 'registration' ? 'registration' : 'email';
  return <VerifyPage kind={kind} target="account" token={params.get('token') ?? ''} />;
}
