import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import type { MessageAnswer } from '../../../api/types';
import { isApiProblem } from '../../../lib/api';
import { PageMeta } from '../../content';
import type { Notification } from '../../../components/notifications/store';
import { verifyNewsletter, verifyRegistration } from '../api';
import { once } from '../once';

export type VerificationKind = 'email' | 'registration';

const TEXTS: Record<VerificationKind, { heading: string; success: string }> = {
  email: { heading: 'VERIFYING EMAIL...', success: 'Email verified successfully' },
  registration: { heading: 'VERIFYING REGISTRATION...', success: 'Registration verified successfully' },
};

export const VERIFICATION_FAILED = 'Email verification failed';

/** The notification a verification ends with: the spec's success text, or the server's message, else the fallback. */
export function verificationOutcome(
  kind: VerificationKind,
  result: { ok: true } | { ok: false; error: unknown },
): Notification {
  if (result.ok) return { message: TEXTS[kind].success, type: 'success' };
  const message = isApiProblem(result.error) && result.error.detail ? result.error.detail : VERIFICATION_FAILED;
  return { message, type: 'error' };
}

interface VerifyPageProps {
  kind: VerificationKind;
  /** Which call: the account e-mail (registration) link or the newsletter link. */
  target: 'account' | 'newsletter';
  token: string;
}

/**
 * A verification link's page: 'VERIFYING …' while the BFF checks the token (once, even when
 * effects run twice), then home with the outcome as a notification.
 */
export function VerifyPage({ kind, target, token }: VerifyPageProps) {
  const navigate = useNavigate();
  const { heading } = TEXTS[kind];

  useEffect(() => {
    let active = true;
    const finish = (notification: Notification) => {
      if (active) void navigate('/', { replace: true, state: { notification } });
    };
    const call = (): Promise<MessageAnswer> => {
      if (!token) return Promise.reject(new Error('The verification link has no token'));
      return target === 'newsletter' ? verifyNewsletter(token) : verifyRegistration(token);
    };
    once(`verify:${target}:${token}`, call).then(
      () => {
        finish(verificationOutcome(kind, { ok: true }));
      },
      (error: unknown) => {
        finish(verificationOutcome(kind, { ok: false, error }));
      },
    );
    return () => {
      active = false;
    };
  }, [kind, target, token, navigate]);

  return (
    <div className="page page--verify">
      <PageMeta title={heading} />
      <div role="status">
        <h1>{heading}</h1>
      </div>
    </div>
  );
}
