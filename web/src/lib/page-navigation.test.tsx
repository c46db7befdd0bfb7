import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RouteObject } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { LoadedPage, PageSlot } from '../app/page-slots';
import type { RouteModule } from '../app/route-module';
import { renderRoute } from '../test/render';
import { useNavigateWhenShown } from './page-navigation';

const events: string[] = [];

function Start() {
  const navigate = useNavigateWhenShown();
  return (
    <button
      type="button"
      onClick={() => {
        void navigate('/next').then(() => {
          events.push(`done, showing: ${document.querySelector('h1')?.textContent ?? 'nothing'}`);
        });
      }}
    >
      Go
    </button>
  );
}

describe('useNavigateWhenShown', () => {
  it('resolves once the next page is on screen, not when its load starts', async () => {
    let release: () => void = () => undefined;
    const loaded = new Promise<null>((resolve) => {
      release = () => {
        resolve(null);
      };
    });
    const route = (path: string, module: RouteModule) => ({
      path,
      handle: { module: path, load: () => Promise.resolve(module) },
      element: <LoadedPage module={path} />,
    });
    const routes: RouteObject[] = [
      {
        element: <PageSlot />,
        children: [
          route('/', { Component: Start }),
          route('/next', { Component: () => <h1>Next page</h1>, loader: () => () => loaded }),
        ],
      },
    ];
    const user = userEvent.setup();
    const { router } = renderRoute('/', { routes });

    await user.click(await screen.findByRole('button', { name: 'Go' }));
    expect(router.location.pathname).toBe('/next');
    // the page on screen stays while the next one loads, and the navigation is not done
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.getByRole('button', { name: 'Go' })).toBeInTheDocument();
    expect(events).toEqual([]);

    act(() => {
      release();
    });
    expect(await screen.findByRole('heading', { name: 'Next page' })).toBeInTheDocument();
    await vi.waitFor(() => {
      expect(events).toEqual(['done, showing: Next page']);
    });
  });
});
