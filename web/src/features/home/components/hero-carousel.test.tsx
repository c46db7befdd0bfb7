import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { homePage } from '../../../test/fixtures';
import { CAROUSEL_INTERVAL_MS, HeroCarousel } from './hero-carousel';
import { defined } from '../../../test/defined';

function renderCarousel() {
  const router = createMemoryRouter([{ path: '/', element: <HeroCarousel slides={homePage.carousel} /> }]);
  return render(<RouterProvider router={router} />);
}

const visibleSlideTitle = () => screen.getByRole('heading', { level: 2 }).textContent;

describe('HeroCarousel', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the first slide with its title, subtitle, image and link', () => {
    renderCarousel();
    const slide = screen.getByRole('group', { name: '1 of 2' });
    expect(slide).toBeVisible();
    expect(screen.getByRole('heading', { name: 'Built for the Long Range' })).toBeInTheDocument();
    expect(screen.getByText('Precision rifles')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'slide-1 image' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Shop Rifles/ })).toHaveAttribute('href', '/collection/rifles');
  });

  it('auto-advances every 5 seconds and loops', () => {
    renderCarousel();
    expect(visibleSlideTitle()).toBe('Built for the Long Range');

    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS);
    });
    expect(visibleSlideTitle()).toBe('Carry With Confidence');

    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS);
    });
    expect(visibleSlideTitle()).toBe('Built for the Long Range');
  });

  it('moves with the previous/next buttons and the dots, and can stop rotating', async () => {
    const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
    renderCarousel();

    await user.click(screen.getByRole('button', { name: 'Previous slide' }));
    expect(visibleSlideTitle()).toBe('Carry With Confidence');
    await user.click(screen.getByRole('button', { name: 'Next slide' }));
    expect(visibleSlideTitle()).toBe('Built for the Long Range');
    await user.click(screen.getByRole('button', { name: 'Slide 2: Carry With Confidence' }));
    expect(visibleSlideTitle()).toBe('Carry With Confidence');
    expect(screen.getByRole('button', { name: 'Slide 2: Carry With Confidence' })).toHaveAttribute(
      'aria-current',
      'true',
    );

    await user.click(screen.getByRole('button', { name: 'Stop slide rotation' }));
    await user.unhover(screen.getByRole('region', { name: 'Featured' }));
    (document.activeElement as HTMLElement | null)?.blur();
    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS * 3);
    });
    expect(visibleSlideTitle()).toBe('Carry With Confidence');
    expect(screen.getByRole('button', { name: 'Start slide rotation' })).toBeInTheDocument();
  });

  it('pauses while keyboard focus is inside, and resumes when it leaves', async () => {
    const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
    renderCarousel();

    await user.tab(); // the slide's link
    expect(screen.getByRole('link', { name: /Shop Rifles/ })).toHaveFocus();
    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS * 3);
    });
    expect(visibleSlideTitle()).toBe('Built for the Long Range');

    act(() => {
      (document.activeElement as HTMLElement | null)?.blur();
    });
    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS);
    });
    expect(visibleSlideTitle()).toBe('Carry With Confidence');
  });

  it('pauses while the pointer is over it', async () => {
    const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
    renderCarousel();
    await user.hover(screen.getByRole('region', { name: 'Featured' }));
    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS * 2);
    });
    expect(visibleSlideTitle()).toBe('Built for the Long Range');
  });

  it('does not rotate for users who prefer reduced motion', () => {
    vi.stubGlobal(
      'matchMedia',
      vi.fn((query: string) => ({
        matches: query.includes('reduce'),
        media: query,
        addEventListener: vi.fn(),
        removeEventListener: vi.fn(),
      })),
    );
    renderCarousel();
    act(() => {
      vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS * 3);
    });
    expect(visibleSlideTitle()).toBe('Built for the Long Range');
    expect(screen.getByRole('button', { name: 'Start slide rotation' })).toBeInTheDocument();
  });

  it('loops through three or more slides in order', () => {
    const router = createMemoryRouter([
      {
        path: '/',
        element: (
          <HeroCarousel
            slides={[
              ...homePage.carousel,
              { ...defined(homePage.carousel[0]), title: 'Third Slide', url: '/limited-edition' },
            ]}
          />
        ),
      },
    ]);
    render(<RouterProvider router={router} />);
    const seen: (string | null)[] = [visibleSlideTitle()];
    for (let step = 0; step < 4; step += 1) {
      act(() => {
        vi.advanceTimersByTime(CAROUSEL_INTERVAL_MS);
      });
      seen.push(visibleSlideTitle());
    }
    expect(seen).toEqual([
      'Built for the Long Range',
      'Carry With Confidence',
      'Third Slide',
      'Built for the Long Range',
      'Carry With Confidence',
    ]);
  });
});
