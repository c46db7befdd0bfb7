import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { footerPage } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { server } from '../test/server';

describe('layout', () => {
  it('renders the header menus from /api/pages/app', async () => {
    renderRoute('/');

    const banner = await screen.findByRole('banner');
    const nav = within(banner).getByRole('navigation', { name: 'Main' });
    for (const title of ['Rifles', 'Pistols', 'Apparel & Gear', 'Support']) {
      expect(within(nav).getByRole('button', { name: title })).toHaveAttribute('aria-expanded', 'false');
    }
    expect(within(banner).getByRole('link', { name: 'Test Arms' })).toHaveAttribute('href', '/');
    expect(within(banner).getByRole('button', { name: 'Search' })).toBeInTheDocument();
    expect(within(banner).getByRole('button', { name: 'Cart, 0 items' })).toBeInTheDocument();
    expect(within(banner).getByRole('link', { name: 'Dealer locator' })).toHaveAttribute('href', '/dealer-locator');
    expect(within(banner).getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
  });

  it('opens a menu to show its groups and cards, and closes it with Escape', async () => {
    const user = userEvent.setup();
    renderRoute('/');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    const rifles = within(nav).getByRole('button', { name: 'Rifles' });

    await user.click(rifles);

    expect(rifles).toHaveAttribute('aria-expanded', 'true');
    expect(within(nav).getByRole('link', { name: 'Rifles Model One' })).toHaveAttribute('href', '/product/rifles-one');
    expect(within(nav).getByRole('link', { name: /Rifles Featured/ })).toBeInTheDocument();
    expect(within(nav).getByRole('list', { name: 'Rifles models' })).toBeInTheDocument();

    await user.keyboard('{Escape}');
    expect(rifles).toHaveAttribute('aria-expanded', 'false');
    expect(rifles).toHaveFocus();
  });

  it('closes an open menu when a page changes', async () => {
    const user = userEvent.setup();
    renderRoute('/');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await user.click(within(nav).getByRole('button', { name: 'Pistols' }));
    await user.click(within(nav).getByRole('link', { name: 'Pistols Model One' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Product' })).toBeInTheDocument();
    expect(within(nav).getByRole('button', { name: 'Pistols' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('renders the footer from /api/pages/footer', async () => {
    renderRoute('/');

    const footer = await screen.findByRole('contentinfo');
    expect(within(footer).getByRole('button', { name: 'Back To Top' })).toBeInTheDocument();

    const nav = within(footer).getByRole('navigation', { name: 'Footer' });
    const columns = within(nav).getAllByRole('list');
    expect(
      columns.map((column) =>
        within(column)
          .getAllByRole('link')
          .map((link) => link.textContent),
      ),
    ).toEqual([
      ['About Us', 'Contact Us', 'Dealer Locator'],
      ['Warranty', 'FAQ'],
      ['Media Library', 'Patents'],
    ]);
    expect(within(nav).getByRole('link', { name: 'Dealer Locator' })).toHaveAttribute('href', '/dealer-locator');

    expect(within(footer).getByRole('link', { name: 'Instagram' })).toHaveAttribute(
      'href',
      'https://instagram.example.test/testarms',
    );
    expect(within(footer).getByRole('link', { name: 'Download Product Guide' })).toHaveAttribute(
      'href',
      footerPage.downloadAsset.url,
    );
    const legal = within(footer).getByRole('list', { name: 'Legal' });
    expect(within(legal).getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/copy/privacy');
  });

  it('renders an empty frame, silently, when the content service fails', async () => {
    server.use(
      http.get('/api/pages/app', () => new HttpResponse(null, { status: 502 })),
      http.get('/api/pages/footer', () => HttpResponse.error()),
    );
    renderRoute('/');

    const banner = await screen.findByRole('banner');
    expect(within(banner).getByRole('navigation', { name: 'Main' })).toBeEmptyDOMElement();
    expect(within(screen.getByRole('contentinfo')).getByRole('button', { name: 'Back To Top' })).toBeInTheDocument();
    expect(screen.queryByText(/Unexpected Application Error/)).not.toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Built for the Long Range' })).toBeInTheDocument();
  });

  it('moves focus to the main region after a page change', async () => {
    const user = userEvent.setup();
    renderRoute('/');
    const footer = await screen.findByRole('contentinfo');

    await user.click(within(footer).getByRole('link', { name: 'Warranty' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Warranty' })).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByRole('main')).toHaveFocus();
    });
  });
});
