import { AuthLayout } from '../../features/auth/components/auth-layout';
import { ForgotPasswordForm } from '../../features/auth/components/forgot-password-form';
import { useContentPage } from '../../features/content/hooks';
import { pageLoader } from '../../features/content/queries';

export const loader = pageLoader('forgotpassword');

export function Component() {
  const page = useContentPage('forgotpassword');
  return (
    <AuthLayout page={page} title="Forgot Password">
      <ForgotPasswordForm />
    </AuthLayout>
  );
}
