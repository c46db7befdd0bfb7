import type { QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, type LoaderFunction, Navigate, Outlet, redirect, useLocation, useNavigate } from 'react-router';

import { notificationStore } from '../../../components/notifications/store';
import { anonymousSession, sessionQuery, useSession } from '../../session';
import { paths } from '../../../lib/paths';
import { accountQuery } from '../queries';
import { useSignOut } from '../../auth';
import '../account.css';

interface MenuEntry {
  to: string;
  label: string;
  /** The pages of the menu entry's section (the entry is marked on each). */
  section: RegExp;
}

const MENU: MenuEntry[] = [
  {
    to: '/profile',
    label: 'My Account',
    section: /^\/profile(?:\/(?:account-information|details|update-password|newsletter|my-reviews))?$/,
  },
  { to: '/profile/orders', label: 'My Orders', section: /^\/profile\/orders(?:\/.*)?$/ },
  { to: '/profile/address-book', label: 'Address Book', section: /^\/profile\/address-book(?:\/.*)?$/ },
  {
    to: '/profile/discount-programs',
    label: 'Discount Programs',
    section: /^\/profile\/(?:discount-programs|pro-deal|le-mil)$/,
  },
];

/** Where a child page's Back link goes: one level up. */
export function backPath(pathname: string): string | null {
  const path = normalize(pathname);
  if (path === '/profile') return null;
  if (/^\/profile\/orders\/[^/]+$/.test(path)) return '/profile/orders';
  if (/^\/profile\/address-book\/[^/]+$/.test(path)) return '/profile/address-book';
  if (/^\/profile\/(?:pro-deal|le-mil)$/.test(path)) return '/profile/discount-programs';
  return '/profile';
}

function normalize(pathname: string): string {
  return pathname.replace(/\/+$/, '') || '/';
}

/**
 * The guard of `/profile` and its children: a signed-out visitor goes to sign-in, which comes back
 * here afterwards. For the signed-in, the account is loaded before the page shows.
 */
export function accountLoader(queryClient: QueryClient): LoaderFunction {
  return async ({ request }) => {
    const session = await queryClient.query(sessionQuery).catch(() => anonymousSession);
    if (!session.signedIn) {
      const url = new URL(request.url);
      return redirect(paths.login(`${url.pathname}${url.search}`));
    }
    // the pages show their own loading and error states; this only saves a round of waiting
    await queryClient.query(accountQuery).catch(() => undefined);
    return null;
  };
}

/**
 * To sign-in, with the notification that explains why (an expired session), as one navigation
 * state object: `<Navigate>` navigates again whenever its props change, and the data router
 * renders the page again while it loads the next one.
 */
function ToSignIn({ to }: { to: string }) {
  const [state] = useState(() => {
    const notification = notificationStore.get();
    return notification ? { notification } : null;
  });
  return <Navigate to={to} replace state={state} />;
}

/**
 * The account area's frame: side menu (My Account, My Orders, Address Book, Discount Programs,
 * Logout; the current section marked), a Back link on child pages, the page. When the session
 * ends while a page is open (it expired), the visitor goes to sign-in, with the notification that
 * explains why, and comes back after signing in.
 */
export function AccountLayout() {
  const { signedIn } = useSession();
  const { pathname, search } = useLocation();
  const path = normalize(pathname);
  const back = backPath(path);
  const logout = useLogout();

  if (!signedIn && !logout.leaving) return <ToSignIn to={paths.login(`${pathname}${search}`)} />;

  return (
    <div className="account">
      <nav aria-label="Account" className="account__nav">
        <ul>
          {MENU.map((entry) => (
            <li key={entry.to}>
              <Link
                to={entry.to}
                aria-current={path === entry.to ? 'page' : undefined}
                className={entry.section.test(path) ? 'account__nav-link is-active' : 'account__nav-link'}
              >
                {entry.label}
              </Link>
            </li>
          ))}
          <li>
            <button
              type="button"
              className="account__nav-link account__logout"
              onClick={logout.run}
              disabled={logout.leaving}
            >
              Logout
            </button>
          </li>
        </ul>
      </nav>
      <div className="account__content">
        {back ? (
          <p className="account__back">
            <Link to={back}>Back</Link>
          </p>
        ) : null}
        <Outlet />
      </div>
    </div>
  );
}

/**
 * Logout from the menu: home first, then the session ends (the auth hook forgets the user's data
 * either way), once the account area is gone from the screen: while it shows, a signed-out
 * session would send the visitor to sign-in. (The router's `navigate` resolves when the
 * navigation completes, a moment before React has put home on screen: so the account area's
 * unmount ends the session, not that promise.)
 */
function useLogout() {
  const navigate = useNavigate();
  const { mutate: signOut } = useSignOut();
  const [leaving, setLeaving] = useState(false);
  useEffect(() => {
    if (!leaving) return;
    return () => {
      signOut();
    };
  }, [leaving, signOut]);
  const run = () => {
    setLeaving(true);
    void navigate('/');
  };
  return { run, leaving };
}
