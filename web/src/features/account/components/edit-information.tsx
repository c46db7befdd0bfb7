import { useNavigate } from 'react-router';
import { zodResolver } from '@hookform/resolvers/zod';
import { Controller, useForm } from 'react-hook-form';
import type { Profile } from '../../../api/types';
import { TextField } from '../../../components/ui/field';
import { PhoneField } from '../../../components/ui/phone-field';
import { applyServerErrors } from '../../../lib/forms/rules';
import { notifyError } from '../../../components/notifications/store';
import { useUpdateProfile } from '../queries';
import { profileSchema, type ProfileValues } from '../schemas';
import { AccountPage } from './account-page';
import { useOrigin } from './address-form';

export const PROFILE_SAVED = 'Your account information has been saved.';

/** Edit Information: first and last name, e-mail (read-only), phone (formatted as typed). */
export function EditInformationPage() {
  return <AccountPage title="Edit Information">{(profile) => <EditInformationForm profile={profile} />}</AccountPage>;
}

function EditInformationForm({ profile }: { profile: Profile }) {
  const navigate = useNavigate();
  const origin = useOrigin('/profile');
  const update = useUpdateProfile();
  const {
    register,
    handleSubmit,
    control,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ProfileValues>({
    resolver: zodResolver(profileSchema),
    defaultValues: {
      firstName: profile.firstName,
      lastName: profile.lastName,
      phoneNumber: profile.phoneNumber ?? '',
    },
  });

  const submit = async (values: ProfileValues) => {
    try {
      await update.mutateAsync({
        firstName: values.firstName,
        lastName: values.lastName,
        phoneNumber: values.phoneNumber,
      });
      await navigate(origin, { state: { notification: { message: PROFILE_SAVED, type: 'success' } } });
    } catch (error) {
      if (!applyServerErrors(error, setError, ['firstName', 'lastName', 'phoneNumber'])) notifyError(error);
    }
  };

  return (
    <form
      className="account-form"
      aria-label="Edit Information"
      noValidate
      onSubmit={(event) => void handleSubmit(submit)(event)}
    >
      <div className="form-row">
        <TextField
          label="First Name"
          autoComplete="given-name"
          error={errors.firstName?.message}
          {...register('firstName')}
        />
        <TextField
          label="Last Name"
          autoComplete="family-name"
          error={errors.lastName?.message}
          {...register('lastName')}
        />
      </div>
      <TextField
        label="Email"
        type="email"
        value={profile.email}
        readOnly
        hint="Your e-mail address cannot be changed."
      />
      <Controller
        control={control}
        name="phoneNumber"
        render={({ field }) => (
          <PhoneField
            label="Phone"
            autoComplete="tel"
            error={errors.phoneNumber?.message}
            ref={field.ref}
            name={field.name}
            value={field.value}
            onBlur={field.onBlur}
            onChange={field.onChange}
          />
        )}
      />
      <div className="account-form__actions">
        <button type="submit" className="button" disabled={isSubmitting}>
          Save
        </button>
      </div>
    </form>
  );
}
