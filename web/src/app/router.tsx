import type { QueryClient } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, redirect, type RouteObject } from 'react-router';
import { pageQuery } from '../features/content/queries';
import { runtimeConfigQuery } from '../lib/runtime-config';
import { HydrateFallback } from './hydrate-fallback';
import { RootLayout } from './root-layout';
import { RouteErrorPage } from './route-error-page';
import type { RouteModule } from './route-module';

/**
 * Every screen of the specs. Each page is its own lazily loaded module (code-split chunk);
 * the frame (header, footer) is in the entry bundle.
 */
export function createRoutes(queryClient: QueryClient): RouteObject[] {
  const page = (load: () => Promise<RouteModule>): Pick<RouteObject, 'lazy'> => ({
    lazy: async () => {
      const module = await load();
      return {
        Component: module.Component,
        ...(module.loader ? { loader: module.loader(queryClient) } : {}),
        ...(module.shouldRevalidate ? { shouldRevalidate: module.shouldRevalidate } : {}),
      };
    },
  });

  return [
    {
      id: 'root',
      path: '/',
      Component: RootLayout,
      errorElement: <RouteErrorPage />,
      HydrateFallback,
      loader: async () => {
        // Cached data is used as is (components refetch stale data in the background). Content
        // failures resolve to empty pages, and the frame renders without the runtime config.
        await Promise.all([
          queryClient.query({ ...pageQuery('app'), staleTime: 'static' }),
          queryClient.query({ ...pageQuery('footer'), staleTime: 'static' }),
          queryClient.query(runtimeConfigQuery).catch(() => undefined),
        ]);
        return null;
      },
      // the frame's data does not depend on the URL
      shouldRevalidate: () => false,
      children: [
        {
          // page errors render inside the frame; the root boundary catches frame errors
          errorElement: <RouteErrorPage />,
          children: [
            { index: true, ...page(() => import('./routes/home')) },
            { path: 'home', loader: () => redirect('/'), element: <Navigate to="/" replace /> },

            // shopping
            { path: 'checkout', ...page(() => import('./routes/checkout')) },
            { path: 'confirm/:orderId', ...page(() => import('./routes/confirm')) },
            { path: 'limited-edition', ...page(() => import('./routes/limited-edition')) },
            { path: 'dealer-locator', ...page(() => import('./routes/dealer-locator')) },
            { path: 'dealer-registration', ...page(() => import('./routes/dealer-registration')) },
            { path: 'search/:query', ...page(() => import('./routes/search')) },
            { path: 'product/:title', ...page(() => import('./routes/product')) },
            { path: 'collection/:title', ...page(() => import('./routes/collection')) },
            { path: '3dbuilder', ...page(() => import('./routes/builder')) },

            // authentication
            { path: 'login', ...page(() => import('./routes/login')) },
            { path: 'register', ...page(() => import('./routes/register')) },
            { path: 'forgot-password', ...page(() => import('./routes/forgot-password')) },
            { path: 'auth/reset-password', ...page(() => import('./routes/reset-password')) },
            { path: 'verify-email', ...page(() => import('./routes/verify-email')) },
            { path: 'Newsletter/verify/:token', ...page(() => import('./routes/newsletter-verify')) },

            // content
            { path: 'about-us', ...page(() => import('./routes/about-us')) },
            { path: 'contact-us', ...page(() => import('./routes/contact-us')) },
            { path: 'media-library', ...page(() => import('./routes/media-library')) },
            { path: 'support', ...page(() => import('./routes/support')) },
            { path: 'warranty', ...page(() => import('./routes/warranty')) },
            { path: 'faq', ...page(() => import('./routes/faq')) },
            { path: 'reviews', ...page(() => import('./routes/reviews')) },
            { path: 'resources', ...page(() => import('./routes/resources')) },
            { path: 'patents', ...page(() => import('./routes/patents')) },
            { path: 'copy/:copyId', ...page(() => import('./routes/copy')) },
            { path: 'terms-of-service', ...page(() => import('./routes/terms-of-service')) },

            // account area
            {
              path: 'profile',
              ...page(() => import('./routes/profile/layout')),
              children: [
                { index: true, ...page(() => import('./routes/profile/account')) },
                { path: 'details', ...page(() => import('./routes/profile/details')) },
                { path: 'update-password', ...page(() => import('./routes/profile/update-password')) },
                { path: 'newsletter', ...page(() => import('./routes/profile/newsletter')) },
                { path: 'address-book', ...page(() => import('./routes/profile/address-book')) },
                { path: 'address-book/:id', ...page(() => import('./routes/profile/address-form')) },
                { path: 'orders', ...page(() => import('./routes/profile/orders')) },
                { path: 'orders/:id', ...page(() => import('./routes/profile/order-details')) },
                { path: 'account-information', ...page(() => import('./routes/profile/account-information')) },
                { path: 'my-reviews', ...page(() => import('./routes/profile/my-reviews')) },
                { path: 'discount-programs', ...page(() => import('./routes/profile/discount-programs')) },
                { path: 'pro-deal', ...page(() => import('./routes/profile/pro-deal')) },
                { path: 'le-mil', ...page(() => import('./routes/profile/le-mil')) },
              ],
            },

            { path: '*', ...page(() => import('./routes/not-found')) },
          ],
        },
      ],
    },
  ];
}

export function createAppRouter(queryClient: QueryClient) {
  return createBrowserRouter(createRoutes(queryClient));
}

/**
 * The router for a server-rendered document: its loaders and lazy route modules run before it
 * is handed over (from the document's data, so no request goes out), and the first render is
 * then the very tree the server rendered, ready for `hydrateRoot`.
 */
export async function createHydratingRouter(queryClient: QueryClient) {
  const router = createBrowserRouter(createRoutes(queryClient));
  if (!router.state.initialized) {
    await new Promise<void>((resolve) => {
      const unsubscribe = router.subscribe((state) => {
        if (!state.initialized) return;
        unsubscribe();
        resolve();
      });
    });
  }
  return router;
}
