import type { RouteObject } from 'react-router';
import { Navigate } from 'react-router';
import { RootLayout } from './root-layout';
import type { RouteModule } from './route-module';
import { FrameSlot, LoadedPage, PageSlot } from './page-slots';

/**
 * Every screen of the specs, as a route table of React Router's declarative router
 * (`useRoutes`, `matchRoutes`). Each page is its own lazily loaded module (code-split chunk),
 * loaded with its data before it shows (`page-loads.ts`, `page-routes.tsx`); the frame (header,
 * footer) is in the entry bundle.
 */
function page(module: string, load: () => Promise<RouteModule>): Pick<RouteObject, 'handle' | 'element'> {
  // `module` is the page's source path, as Vite's manifest names it: the server render lists
  // that route's chunks for the boot script (`src/ssr/route-chunks.ts`); a test checks that it
  // names the module `load` imports.
  return { handle: { module, load }, element: <LoadedPage module={module} /> };
}

export const pageTable: RouteObject[] = [
  {
    path: '/',
    handle: { frame: true },
    // frame errors render the error page alone; page errors render inside the frame
    element: (
      <FrameSlot>
        <RootLayout />
      </FrameSlot>
    ),
    children: [
      {
        element: <PageSlot />,
        children: [
          { index: true, ...page('src/app/routes/home.tsx', () => import('./routes/home')) },
          { path: 'home', handle: { redirectTo: '/' }, element: <Navigate to="/" replace /> },

          // shopping
          { path: 'checkout', ...page('src/app/routes/checkout.tsx', () => import('./routes/checkout')) },
          { path: 'confirm/:orderId', ...page('src/app/routes/confirm.tsx', () => import('./routes/confirm')) },
          {
            path: 'limited-edition',
            ...page('src/app/routes/limited-edition.tsx', () => import('./routes/limited-edition')),
          },
          {
            path: 'dealer-locator',
            ...page('src/app/routes/dealer-locator.tsx', () => import('./routes/dealer-locator')),
          },
          {
            path: 'dealer-registration',
            ...page('src/app/routes/dealer-registration.tsx', () => import('./routes/dealer-registration')),
          },
          { path: 'search/:query', ...page('src/app/routes/search.tsx', () => import('./routes/search')) },
          { path: 'product/:title', ...page('src/app/routes/product.tsx', () => import('./routes/product')) },
          {
            path: 'collection/:title',
            ...page('src/app/routes/collection.tsx', () => import('./routes/collection')),
          },
          { path: '3dbuilder', ...page('src/app/routes/builder.tsx', () => import('./routes/builder')) },

          // authentication
          { path: 'login', ...page('src/app/routes/login.tsx', () => import('./routes/login')) },
          { path: 'register', ...page('src/app/routes/register.tsx', () => import('./routes/register')) },
          {
            path: 'forgot-password',
            ...page('src/app/routes/forgot-password.tsx', () => import('./routes/forgot-password')),
          },
          {
            path: 'auth/reset-password',
            ...page('src/app/routes/reset-password.tsx', () => import('./routes/reset-password')),
          },
          { path: 'verify-email', ...page('src/app/routes/verify-email.tsx', () => import('./routes/verify-email')) },
          {
            path: 'Newsletter/verify/:token',
            ...page('src/app/routes/newsletter-verify.tsx', () => import('./routes/newsletter-verify')),
          },

          // content
          { path: 'about-us', ...page('src/app/routes/about-us.tsx', () => import('./routes/about-us')) },
          { path: 'contact-us', ...page('src/app/routes/contact-us.tsx', () => import('./routes/contact-us')) },
          {
            path: 'media-library',
            ...page('src/app/routes/media-library.tsx', () => import('./routes/media-library')),
          },
          { path: 'support', ...page('src/app/routes/support.tsx', () => import('./routes/support')) },
          { path: 'warranty', ...page('src/app/routes/warranty.tsx', () => import('./routes/warranty')) },
          { path: 'faq', ...page('src/app/routes/faq.tsx', () => import('./routes/faq')) },
          { path: 'reviews', ...page('src/app/routes/reviews.tsx', () => import('./routes/reviews')) },
          { path: 'resources', ...page('src/app/routes/resources.tsx', () => import('./routes/resources')) },
          { path: 'patents', ...page('src/app/routes/patents.tsx', () => import('./routes/patents')) },
          { path: 'copy/:copyId', ...page('src/app/routes/copy.tsx', () => import('./routes/copy')) },
          {
            path: 'terms-of-service',
            ...page('src/app/routes/terms-of-service.tsx', () => import('./routes/terms-of-service')),
          },

          // account area
          {
            path: 'profile',
            ...page('src/app/routes/profile/layout.tsx', () => import('./routes/profile/layout')),
            children: [
              {
                index: true,
                ...page('src/app/routes/profile/account.tsx', () => import('./routes/profile/account')),
              },
              {
                path: 'details',
                ...page('src/app/routes/profile/details.tsx', () => import('./routes/profile/details')),
              },
              {
                path: 'update-password',
                ...page('src/app/routes/profile/update-password.tsx', () => import('./routes/profile/update-password')),
              },
              {
                path: 'newsletter',
                ...page('src/app/routes/profile/newsletter.tsx', () => import('./routes/profile/newsletter')),
              },
              {
                path: 'address-book',
                ...page('src/app/routes/profile/address-book.tsx', () => import('./routes/profile/address-book')),
              },
              {
                path: 'address-book/:id',
                ...page('src/app/routes/profile/address-form.tsx', () => import('./routes/profile/address-form')),
              },
              {
                path: 'orders',
                ...page('src/app/routes/profile/orders.tsx', () => import('./routes/profile/orders')),
              },
              {
                path: 'orders/:id',
                ...page('src/app/routes/profile/order-details.tsx', () => import('./routes/profile/order-details')),
              },
              {
                path: 'account-information',
                ...page(
                  'src/app/routes/profile/account-information.tsx',
                  () => import('./routes/profile/account-information'),
                ),
              },
              {
                path: 'my-reviews',
                ...page('src/app/routes/profile/my-reviews.tsx', () => import('./routes/profile/my-reviews')),
              },
              {
                path: 'discount-programs',
                ...page(
                  'src/app/routes/profile/discount-programs.tsx',
                  () => import('./routes/profile/discount-programs'),
                ),
              },
              {
                path: 'pro-deal',
                ...page('src/app/routes/profile/pro-deal.tsx', () => import('./routes/profile/pro-deal')),
              },
              {
                path: 'le-mil',
                ...page('src/app/routes/profile/le-mil.tsx', () => import('./routes/profile/le-mil')),
              },
            ],
          },

          { path: '*', ...page('src/app/routes/not-found.tsx', () => import('./routes/not-found')) },
        ],
      },
    ],
  },
];
