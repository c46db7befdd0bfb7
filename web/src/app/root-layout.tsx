import { lazy, Suspense, useEffect, useRef } from 'react';
import { Outlet, ScrollRestoration, useLocation, useNavigation } from 'react-router';
import { useAnalytics, useConsent } from '../features/analytics/use-analytics';
import { cartDrawerStore, useCartDrawerOpen } from '../features/cart/queries';
import { useContentPage } from '../features/content/hooks';
import { GlobalLoadingIndicator, SiteFooter, SiteHeader } from '../features/layout';
import { NotificationBanner } from '../components/notifications/notification-banner';
import { promotionStore } from '../features/promotions/store';
import { useCartPromotion } from '../features/cart/use-cart-promotion';
import { useAfterFirstScreen } from '../lib/idle';
import { useRuntimeConfig } from '../lib/runtime-config';
import { useStore } from '../lib/store';

// modals load only when they open, and never for the first screen
const ConsentModal = lazy(() => import('../features/analytics/consent-modal'));
const PromotionModal = lazy(() => import('../features/promotions/promotion-modal'));

/**
 * The page frame: skip link, loading indicator, header, notification banner, main, footer and the
 * global modals. Page changes close the cart and move focus to the main region; the router's
 * `<ScrollRestoration>` puts a new page at the top (or its `#hash`), back and forward where the
 * page was left, and keeps the position of a navigation with `preventScrollReset` (a filter, a
 * tab). The page on screen is busy while the next one loads (the router's navigation state).
 */
export function RootLayout() {
  const app = useContentPage('app');
  const footer = useContentPage('footer');
  const brandName = useRuntimeConfig()?.brandName ?? '';
  const pageLoading = useNavigation().state !== 'idle';
  const mainRef = useMainFocusOnPageChange();
  useCloseCartOnPageChange();
  useAnalytics();
  useCartPromotion();
  const consent = useConsent();
  const promotion = useStore(promotionStore);
  const later = useAfterFirstScreen();

  return (
    <>
      <a id="skip-link" className="skip-link" href="#main">
        Skip to main content
      </a>
      <GlobalLoadingIndicator />
      <SiteHeader page={app} brandName={brandName} />
      <NotificationBanner />
      <main id="main" ref={mainRef} tabIndex={-1} aria-busy={pageLoading}>
        <Outlet />
      </main>
      <SiteFooter page={footer} brandName={brandName} />
      <ScrollRestoration />
      <Suspense fallback={null}>
        {later && consent === 'undecided' ? <ConsentModal brandName={brandName} /> : null}
        {later && promotion && consent !== 'undecided' ? <PromotionModal promotion={promotion} /> : null}
      </Suspense>
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

/** Page changes close the cart drawer; while it is open the page body carries `cart-open`. */
function useCloseCartOnPageChange() {
  const { pathname } = useLocation();
  const open = useCartDrawerOpen();
  useEffect(() => {
    cartDrawerStore.set(false);
  }, [pathname]);
  useEffect(() => {
    document.body.classList.toggle('cart-open', open);
  }, [open]);
}
