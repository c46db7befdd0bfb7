import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HYDRATED_ATTRIBUTE, useHydrated } from './use-hydrated';

function Probe({ seen }: { seen: boolean[] }) {
  const hydrated = useHydrated();
  seen.push(hydrated);
  return <p>{hydrated ? 'usable' : 'waiting'}</p>;
}

describe('useHydrated', () => {
  afterEach(() => {
    document.documentElement.removeAttribute(HYDRATED_ATTRIBUTE);
  });

  it('is false for the first render of the app, then true', async () => {
    const seen: boolean[] = [];
    await act(async () => {
      render(<Probe seen={seen} />);
      await Promise.resolve();
    });
    expect(seen[0]).toBe(false);
    expect(screen.getByText('usable')).toBeInTheDocument();
  });

  it('is true at once in what renders after the app has taken the page over', () => {
    document.documentElement.setAttribute(HYDRATED_ATTRIBUTE, 'true');
    const seen: boolean[] = [];
    render(<Probe seen={seen} />);
    expect(seen.every(Boolean)).toBe(true);
    expect(screen.getByText('usable')).toBeInTheDocument();
  });
});
