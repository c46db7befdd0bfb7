import { render } from '@testing-library/react';
import { NavigationType, type Location } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepScrollFor, rememberScroll, ScrollRestoration } from './scroll-restoration';

function location(key: string, hash = ''): Location {
  return { pathname: '/faq', search: '', hash, state: null, key };
}

function scrolledTo(y: number) {
  Object.defineProperty(window, 'scrollY', { configurable: true, value: y });
}

afterEach(() => {
  scrolledTo(0);
});

describe('scroll restoration', () => {
  it('starts a new page at the top', () => {
    const scrollTo = vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    render(<ScrollRestoration location={location('new-page')} navigationType={NavigationType.Push} />);
    expect(scrollTo).toHaveBeenCalledWith(0, 0);
  });

  it('stays where it is when the navigation asked to (preventScrollReset)', () => {
    const scrollTo = vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    keepScrollFor('filtered');
    render(<ScrollRestoration location={location('filtered')} navigationType={NavigationType.Replace} />);
    expect(scrollTo).not.toHaveBeenCalled();
  });

  it('returns to where the page was left on back and forward', () => {
    const scrollTo = vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    scrolledTo(840);
    rememberScroll('left');
    render(<ScrollRestoration location={location('left')} navigationType={NavigationType.Pop} />);
    expect(scrollTo).toHaveBeenCalledWith(0, 840);
  });

  it("scrolls to the element of the location's hash", () => {
    const scrollTo = vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    const target = document.createElement('section');
    target.id = 'reviews';
    const scrollIntoView = vi.fn();
    target.scrollIntoView = scrollIntoView;
    document.body.append(target);
    render(<ScrollRestoration location={location('with-hash', '#reviews')} navigationType={NavigationType.Push} />);
    expect(scrollIntoView).toHaveBeenCalled();
    expect(scrollTo).not.toHaveBeenCalled();
    target.remove();
  });
});
