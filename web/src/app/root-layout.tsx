import { useEffect, useRef } from 'react';
import { Outlet, ScrollRestoration, useLocation, useNavigation } from 'react-router';
import { useContentPage } from '../features/content/hooks';
import { SiteFooter } from '../features/layout/components/site-footer';
import { SiteHeader } from '../features/layout/components/site-header';
import { useRuntimeConfig } from '../lib/runtime-config';

/** The page frame: skip link, header, main, footer. Page changes scroll to the top. */
export function RootLayout() {
  const app = useContentPage('app');
  const footer = useContentPage('footer');
  const brandName = useRuntimeConfig()?.brandName ?? '';
  const navigation = useNavigation();
  const mainRef = useMainFocusOnPageChange();

  return (
    <>
      <a id="skip-link" className="skip-link" href="#main">
        Skip to main content
      </a>
      <SiteHeader page={app} brandName={brandName} />
      <main id="main" ref={mainRef} tabIndex={-1} aria-busy={navigation.state === 'loading'}>
        {navigation.state === 'loading' ? <div className="page-progress" aria-hidden="true" /> : null}
        <Outlet />
      </main>
      <SiteFooter page={footer} brandName={brandName} />
      {/* scrolls to the top on new pages and restores the position on back/forward */}
      <ScrollRestoration />
    </>
  );
}

/** After a client-side page change, focus moves to the main region so screen readers follow. */
function useMainFocusOnPageChange() {
  const { pathname } = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const previous = useRef(pathname);
  useEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    mainRef.current?.focus({ preventScroll: true });
  }, [pathname]);
  return mainRef;
}
