import { render, screen } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider, useLocation, useParams } from 'react-router';
import { expect, it } from 'vitest';
import { routeTemplate } from './route-template';

function Layout() {
  const params = useParams();
  const { pathname } = useLocation();
  return (
    <>
      <p>{routeTemplate(pathname, params)}</p>
      <Outlet />
    </>
  );
}

it('a layout sees the params of the matched page, so the template names them', async () => {
  const router = createMemoryRouter(
    [{ path: '/', Component: Layout, children: [{ children: [{ path: 'product/:title', Component: () => null }] }] }],
    { initialEntries: ['/product/summit%20lr'] },
  );
  render(<RouterProvider router={router} />);
  expect(await screen.findByText('/product/:title')).toBeInTheDocument();
});
