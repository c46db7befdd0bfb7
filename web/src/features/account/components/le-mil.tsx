import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { Profile } from '../../../api/types';
import { notify } from '../../../components/notifications/store';
import { once } from '../once';
import { militaryProgram } from '../programs';
import { useCompleteMilitaryVerification, useStartMilitaryVerification } from '../queries';
import { AccountPage } from './account-page';

/** The identity-verification service the BFF uses for LE/MIL (the sandbox doubles it). */
export const VERIFICATION_SERVICE = 'VeriPass';

/** LE/MIL: needs a phone and a saved address; then the texts and the button to the verification service. */
export function LeMilPage() {
  useVerificationReturn();
  return <AccountPage title="LE / MIL Verification">{(profile) => <LeMil profile={profile} />}</AccountPage>;
}

/**
 * Back from the verification service with `code` and `state`: they are posted once, the outcome's
 * message is shown, and the parameters leave the address bar. A failed exchange is only logged
 * (spec); either way the page carries on.
 */
function useVerificationReturn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const complete = useCompleteMilitaryVerification();
  const code = params.get('code');
  const state = params.get('state');

  useEffect(() => {
    if (!code || !state) return;
    let active = true;
    const leave = () => {
      if (active) void navigate('/profile/le-mil', { replace: true, preventScrollReset: true });
    };
    once(`le-mil:${state}`, () => complete.mutateAsync({ code, state })).then(
      (outcome) => {
        if (outcome.message) {
          notify({ message: outcome.message, type: outcome.militaryStatus === 'Verified' ? 'success' : 'warning' });
        }
        leave();
      },
      (error: unknown) => {
        console.error('LE/MIL verification could not be completed', error);
        leave();
      },
    );
    return () => {
      active = false;
    };
    // `complete` is a new object every render; the call depends on the parameters only
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [code, state, navigate]);
}

function LeMil({ profile }: { profile: Profile }) {
  const program = militaryProgram(profile.militaryStatus);
  const [params] = useSearchParams();
  if (params.get('code') && params.get('state')) return <p role="status">Completing your verification…</p>;

  const hasPhone = Boolean(profile.phoneNumber);
  const hasAddress = profile.addresses.length > 0;
  if (!hasPhone || !hasAddress) {
    return (
      <div className="account-prompt">
        <p>To verify your LE / MIL status we need a phone number and at least one saved address in your account.</p>
        <p className="account-prompt__actions">
          {hasPhone ? null : (
            <Link to="/profile/details" state={{ from: '/profile/le-mil' }} className="button">
              Add Phone Number
            </Link>
          )}
          {hasAddress ? null : (
            <Link to="/profile/address-book/new" state={{ from: '/profile/le-mil' }} className="button">
              Add Address
            </Link>
          )}
        </p>
      </div>
    );
  }

  return (
    <div className="le-mil">
      <p>
        Active and retired law enforcement officers and members of the military save on our products. We verify your
        status online with {VERIFICATION_SERVICE}, a trusted identity-verification service: it takes a few minutes, and
        we never see your documents.
      </p>
      <p className="program-status">
        <strong>Status:</strong> {program.text}
      </p>
      <h2>Terms</h2>
      <ul>
        <li>LE / MIL purchases are for personal use only and may not be resold.</li>
        <li>Verification is done by {VERIFICATION_SERVICE}; its terms and privacy policy apply.</li>
        <li>All sales are final, and the program may be changed at any time.</li>
      </ul>
      {program.action ? <StartVerification /> : null}
    </div>
  );
}

function StartVerification() {
  const start = useStartMilitaryVerification();
  return (
    <button
      type="button"
      className="button"
      disabled={start.isPending}
      onClick={() => {
        start.mutate(undefined, {
          onSuccess: ({ authorizationUrl }) => {
            if (authorizationUrl && /^https?:\/\//i.test(authorizationUrl)) window.location.assign(authorizationUrl);
            else
              notify({
                message: 'The verification service is not available right now. Please try again later.',
                type: 'error',
              });
          },
          // a failure is told by the shared handler (app/query-client.ts)
        });
      }}
    >
      Verify with {VERIFICATION_SERVICE}
    </button>
  );
}
