import { Navigate } from 'react-router';
import { AuthLayout } from '../../features/auth/components/auth-layout';
import { RegisterForm } from '../../features/auth/components/register-form';
import { useContentPage } from '../../features/content/hooks';
import { pageLoader } from '../../features/content/queries';
import { useSession } from '../../features/session/queries';
import { paths } from '../../lib/paths';

export const loader = pageLoader('register');

export function Component() {
  const page = useContentPage('register');
  const { signedIn } = useSession();
  // a signed-in user goes to the account area (spec)
  if (signedIn) return <Navigate to={paths.account()} replace />;
  return (
    <AuthLayout page={page} title="Create an Account">
      <RegisterForm />
    </AuthLayout>
  );
}
