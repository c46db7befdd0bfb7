import { AuthLayout } from '../../features/auth/components/auth-layout';
import { LoginForm } from '../../features/auth/components/login-form';
import { useContentPage } from '../../features/content/hooks';
import { pageLoader } from '../../features/content/queries';

export const loader = pageLoader('login');

export function Component() {
  const page = useContentPage('login');
  return (
    <AuthLayout page={page} title="Sign In">
      <LoginForm />
    </AuthLayout>
  );
}
