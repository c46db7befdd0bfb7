import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { PasswordField } from '../../../components/ui/password-field';
import { errorMessage } from '../../../lib/api';
import { applyServerErrors } from '../../../lib/forms/rules';
import { PageMeta } from '../../content';
import { notify } from '../../../components/notifications/store';
import { useChangePassword } from '../queries';
import { updatePasswordSchema, type UpdatePasswordValues } from '../schemas';

export const PASSWORD_UPDATED = 'Password updated successfully';

const empty: UpdatePasswordValues = { currentPassword: '', newPassword: '', confirmPassword: '' };

/** Update Password: current, new, confirm (each with show/hide); the spec's success text or the server's message. */
export function UpdatePasswordPage() {
  const change = useChangePassword();
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<UpdatePasswordValues>({ resolver: zodResolver(updatePasswordSchema), defaultValues: empty });

  const submit = async (values: UpdatePasswordValues) => {
    try {
      await change.mutateAsync(values);
      reset(empty);
      notify({ message: PASSWORD_UPDATED, type: 'success' });
    } catch (error) {
      applyServerErrors(error, setError, ['currentPassword', 'newPassword', 'confirmPassword']);
      notify({ message: errorMessage(error), type: 'error' });
    }
  };

  return (
    <div className="page account-page">
      <PageMeta title="Update Password" />
      <h1>Update Password</h1>
      <form
        className="account-form"
        aria-label="Update Password"
        noValidate
        onSubmit={(event) => void handleSubmit(submit)(event)}
      >
        <PasswordField
          label="Current Password"
          autoComplete="current-password"
          required
          error={errors.currentPassword?.message}
          {...register('currentPassword')}
        />
        <PasswordField
          label="New Password"
          autoComplete="new-password"
          required
          error={errors.newPassword?.message}
          {...register('newPassword')}
        />
        <PasswordField
          label="Confirm Password"
          autoComplete="new-password"
          required
          error={errors.confirmPassword?.message}
          {...register('confirmPassword')}
        />
        <div className="account-form__actions">
          <button type="submit" className="button" disabled={isSubmitting}>
            Update Password
          </button>
        </div>
      </form>
    </div>
  );
}
