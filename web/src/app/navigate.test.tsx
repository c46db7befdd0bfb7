import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation, useNavigate, type RouteObject } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderRoute } from '../test/render';

const events: string[] = [];

function Start() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  return (
    <>
      <p>at {pathname}</p>
      <button
        type="button"
        onClick={() => {
          void (async () => {
            await navigate('/next');
            events.push('done');
          })();
        }}
      >
        Go
      </button>
    </>
  );
}

describe("the router's navigate", () => {
  it('resolves once the next page has loaded, and the page on screen keeps its location meanwhile', async () => {
    let release: () => void = () => undefined;
    const loaded = new Promise<null>((resolve) => {
      release = () => {
        resolve(null);
      };
    });
    const routes: RouteObject[] = [
      { path: '/', Component: Start },
      { path: '/next', Component: () => <h1>Next page</h1>, loader: () => loaded },
    ];
    const user = userEvent.setup();
    const { router } = renderRoute('/', { routes });

    await user.click(await screen.findByRole('button', { name: 'Go' }));
    // the page on screen stays while the next one loads, with its own location (as React Router
    // documents `useLocation`), and the navigation is not done
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.getByRole('button', { name: 'Go' })).toBeInTheDocument();
    expect(screen.getByText('at /')).toBeInTheDocument();
    expect(router.location.pathname).toBe('/');
    expect(events).toEqual([]);

    act(() => {
      release();
    });
    expect(await screen.findByRole('heading', { name: 'Next page' })).toBeInTheDocument();
    expect(router.location.pathname).toBe('/next');
    await vi.waitFor(() => {
      expect(events).toEqual(['done']);
    });
  });
});
