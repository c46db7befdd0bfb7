import { useSearchParams } from 'react-router';
import { AuthLayout } from '../../features/auth/components/auth-layout';
import { ResetPasswordForm } from '../../features/auth/components/reset-password-form';
import { useContentPage } from '../../features/content/hooks';
import { pageLoader } from '../../features/content/queries';

export const loader = pageLoader('resetpassword');

export function Component() {
  const page = useContentPage('resetpassword');
  const [searchParams] = useSearchParams();
  // the header defaults to 'Reset Password' (spec)
  return (
    <AuthLayout page={page} title="Reset Password">
      <ResetPasswordForm token={searchParams.get('token') ?? ''} />
    </AuthLayout>
  );
}
