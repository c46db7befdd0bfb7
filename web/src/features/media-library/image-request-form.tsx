import { useMutation } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { TextAreaField, TextField } from '../../components/ui/field';
import { Captcha } from '../../components/captcha/captcha';
import { useCaptchaForm } from '../../components/captcha/use-captcha-form';
import { captchaToken, emailAddress, requiredText } from '../../lib/forms/rules';
import { notify, notifyError } from '../../components/notifications/store';
import { requestImages } from './api';

export const imageRequestSchema = z.object({
  firstName: requiredText('First Name'),
  lastName: requiredText('Last Name'),
  email: emailAddress('Email'),
  lookingFor: requiredText('What you are looking for'),
  captcha: captchaToken(),
});
type Values = z.infer<typeof imageRequestSchema>;

const empty: Values = { firstName: '', lastName: '', email: '', lookingFor: '', captcha: '' };

/**
 * The 'Product Image Request' form: first and last name, e-mail (valid), what they are looking for
 * and the captcha, all required (placeholder 'Required'). Success shows the server's message and
 * clears the form; failure clears and resets the captcha and goes to the shared error handler.
 */
export function ImageRequestForm({ labelledBy }: { labelledBy: string }) {
  const send = useMutation({ mutationFn: requestImages, meta: { errorToast: false } });
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema: imageRequestSchema,
    defaultValues: empty,
    send: send.mutateAsync,
    clearOnSuccess: true,
    onSuccess: (answer) => {
      notify({ message: answer.message || 'Your image request has been received', type: 'success' });
    },
    serverFields: ['firstName', 'lastName', 'email', 'lookingFor'],
    onFailure: notifyError,
  });

  return (
    <form className="image-request-form" aria-labelledby={labelledBy} noValidate onSubmit={onSubmit}>
      <div className="form-row">
        <TextField
          label="First Name"
          placeholder="Required"
          autoComplete="given-name"
          required
          error={errors.firstName?.message}
          {...register('firstName')}
        />
        <TextField
          label="Last Name"
          placeholder="Required"
          autoComplete="family-name"
          required
          error={errors.lastName?.message}
          {...register('lastName')}
        />
      </div>
      <TextField
        label="Email"
        type="email"
        placeholder="Required"
        autoComplete="email"
        required
        error={errors.email?.message}
        {...register('email')}
      />
      <TextAreaField
        label="What are you looking for?"
        placeholder="Required"
        rows={4}
        required
        error={errors.lookingFor?.message}
        {...register('lookingFor')}
      />
      <Captcha {...captchaProps} />
      <button type="submit" className="button" disabled={isSubmitting}>
        Submit Request
      </button>
    </form>
  );
}
