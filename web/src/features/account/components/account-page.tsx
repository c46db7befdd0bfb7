import type { ReactNode } from 'react';
import type { Profile } from '../../../api/types';
import { PageMeta } from '../../content';
import { useAccount } from '../queries';

interface AccountPageProps {
  title: string;
  /** The page body, given the loaded profile. */
  children: (profile: Profile) => ReactNode;
  className?: string;
}

/** An account page: its title, then the body once the profile is loaded (with loading and error states). */
export function AccountPage({ title, children, className }: AccountPageProps) {
  const account = useAccount();
  return (
    <div className={['page', 'account-page', className].filter(Boolean).join(' ')}>
      <PageMeta title={title} />
      <h1>{title}</h1>
      {account.data ? (
        children(account.data)
      ) : account.isError ? (
        <div role="alert" className="account-page__problem">
          <p>We could not load your account. Please try again.</p>
          <button type="button" className="button button--outline" onClick={() => void account.refetch()}>
            Try Again
          </button>
        </div>
      ) : (
        <p role="status">Loading…</p>
      )}
    </div>
  );
}
