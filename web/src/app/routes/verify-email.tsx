import { useSearchParams } from 'react-router';
import { VerifyPage } from '../../features/account';

/**
 * `/verify-email?token=`: the registration verification (spec: route table), always: 'VERIFYING
 * REGISTRATION...', `POST /Auth/verify-registration`, 'Registration verified successfully'.
 */
export function Component() {
  const [params] = useSearchParams();
  return <VerifyPage kind="registration" target="account" token={params.get('token') ?? ''} />;
}
