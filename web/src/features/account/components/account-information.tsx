import { useId, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { Profile } from '../../../api/types';
import { isApiProblem } from '../../../lib/api';
import { notify } from '../../../components/notifications/store';
import { useResendVerification } from '../queries';
import { AccountPage } from './account-page';
import { defaultAddresses, DefaultAddressCard } from './address-card';

export const RESEND_SUCCESS = 'A verification link was sent to your email';
export const RESEND_FAILURE = 'There was an issue resending the verification link, please try again later.';

/** My Account and Account Information: contact, newsletter, e-mail verification and default addresses. */
export function AccountInformationPage({ title }: { title: string }) {
  return <AccountPage title={title}>{(profile) => <AccountInformation profile={profile} />}</AccountPage>;
}

function AccountInformation({ profile }: { profile: Profile }) {
  const { shipping, billing } = defaultAddresses(profile.addresses);
  return (
    <div className="account-information">
      <Card title="Contact Information">
        <p>
          {profile.fullName}
          <br />
          {profile.email}
          {profile.phoneNumber ? (
            <>
              <br />
              {profile.phoneNumber}
            </>
          ) : null}
        </p>
        <p className="account-card__actions">
          <Link to="/profile/details">Edit</Link>
          <Link to="/profile/update-password">Change Password</Link>
        </p>
      </Card>
      <Card title="Newsletters">
        <p>
          {profile.isSubscribedToNewsletter
            ? 'You are subscribed to our newsletter.'
            : 'You arent subscribed to our newsletter.'}
        </p>
        <p className="account-card__actions">
          <Link to="/profile/newsletter">Edit</Link>
        </p>
      </Card>
      <Card title="Email Verification">
        {profile.isEmailVerified ? <p className="account-card__verified">Verified</p> : <ResendVerification />}
      </Card>
      <section className="account-section" aria-labelledby="account-address-book">
        <h2 id="account-address-book">Address Book</h2>
        <div className="account-cards">
          <DefaultAddressCard kind="shipping" address={shipping} from="/profile" />
          <DefaultAddressCard kind="billing" address={billing} from="/profile" />
        </div>
        <Link to="/profile/address-book" className="button button--outline">
          Manage Addresses
        </Link>
      </section>
    </div>
  );
}

function Card({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="account-card" aria-labelledby={id}>
      <h2 id={id} className="account-card__title">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** 'Resend Verification Link': the spec's success text, or the server's message, else the fallback. */
function ResendVerification() {
  const resend = useResendVerification();
  return (
    <>
      <p>Your e-mail address is not verified yet.</p>
      <button
        type="button"
        className="button"
        disabled={resend.isPending}
        onClick={() => {
          resend.mutate(undefined, {
            onSuccess: () => {
              notify({ message: RESEND_SUCCESS, type: 'success' });
            },
            onError: (error) => {
              const message = isApiProblem(error) && error.detail ? error.detail : RESEND_FAILURE;
              notify({ message, type: 'error' });
            },
          });
        }}
      >
        Resend Verification Link
      </button>
    </>
  );
}
