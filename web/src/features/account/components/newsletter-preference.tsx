import { useQuery } from '@tanstack/react-query';
import type { Profile } from '../../../api/types';
import { CheckboxField } from '../../../components/ui/field';
import { Captcha } from '../../../components/captcha/captcha';
import { useCaptchaForm } from '../../../components/captcha/use-captcha-form';
import { notify } from '../../../components/notifications/store';
import { newsletterStatusQuery, useNewsletterPreference } from '../queries';
import { newsletterPreferenceSchema, type NewsletterPreferenceValues } from '../schemas';
import { AccountPage } from './account-page';

export const SUBSCRIBED = 'You have been subscribed to the newsletter';
export const UNSUBSCRIBED = 'You have been unsubscribed from the newsletter';

/** Newsletter preference: a subscribe checkbox plus the captcha. */
export function NewsletterPage() {
  return (
    <AccountPage title="Newsletter Subscription">{(profile) => <NewsletterPreference profile={profile} />}</AccountPage>
  );
}

function NewsletterPreference({ profile }: { profile: Profile }) {
  const status = useQuery(newsletterStatusQuery);
  const subscribed = status.data?.isSubscribed ?? profile.isSubscribedToNewsletter;
  // the form starts from the status; it is keyed by it, so a reloaded status resets the form
  return <NewsletterForm key={String(subscribed)} profile={profile} subscribed={subscribed} />;
}

function NewsletterForm({ profile, subscribed }: { profile: Profile; subscribed: boolean }) {
  const preference = useNewsletterPreference();
  const {
    form: {
      register,
      formState: { isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema: newsletterPreferenceSchema,
    defaultValues: { subscribed, captcha: '' },
    send: async (values: NewsletterPreferenceValues) => {
      if (values.subscribed === subscribed) {
        // nothing to change; the captcha token stays unspent
        notify({
          message: subscribed ? 'You are subscribed to our newsletter.' : 'You arent subscribed to our newsletter.',
          type: 'success',
        });
        return;
      }
      await preference.mutateAsync({
        subscribe: values.subscribed,
        email: profile.email,
        firstName: profile.firstName,
        lastName: profile.lastName,
        captcha: values.captcha,
      });
      notify({ message: values.subscribed ? SUBSCRIBED : UNSUBSCRIBED, type: 'success' });
    },
    // spec: on failure the captcha is cleared and reset, no message
  });

  return (
    <form className="account-form" aria-label="Newsletter Subscription" noValidate onSubmit={onSubmit}>
      <p>{subscribed ? 'You are subscribed to our newsletter.' : 'You arent subscribed to our newsletter.'}</p>
      <CheckboxField label="General Subscription" {...register('subscribed')} />
      <Captcha {...captchaProps} />
      <div className="account-form__actions">
        <button type="submit" className="button" disabled={isSubmitting}>
          Save
        </button>
      </div>
    </form>
  );
}
