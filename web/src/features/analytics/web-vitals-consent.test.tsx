import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderRoute } from '../../test/render';
import { writeConsent } from './consent';
import { startWebVitals } from './web-vitals';
// the modal loads lazily
import './consent-modal';

vi.mock('./web-vitals', () => ({ startWebVitals: vi.fn(() => ({ stop: vi.fn() })) }));

const started = vi.mocked(startWebVitals);

describe('Web Vitals reporting', () => {
  beforeEach(() => {
    localStorage.clear();
    started.mockClear();
  });

  it('does not start before the visitor decides, and starts once they accept', async () => {
    const user = userEvent.setup();
    renderRoute('/product/summit%20lr');
    // a product page's first render, its requests and then the modal after the first screen: on
    // 2 shared cores this can pass 3 s, as MSW 3 answers each request through Undici and a socket
    const dialog = await screen.findByRole('dialog', { name: 'Your privacy' }, { timeout: 6000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).not.toHaveBeenCalled();

    await user.click(within(dialog).getByRole('button', { name: 'Accept' }));

    await waitFor(() => {
      expect(started).toHaveBeenCalledTimes(1);
    });
    const options = started.mock.calls[0]?.[0];
    expect(options?.currentRoute()).toBe('/product/:title');
  });

  it('never starts for a visitor who declined', async () => {
    writeConsent(false, 1);
    renderRoute('/');
    await screen.findByRole('heading', { name: 'Built for the Long Range' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).not.toHaveBeenCalled();
  });
});
