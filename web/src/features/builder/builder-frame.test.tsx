import { act, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renderRoute } from '../../test/render';

beforeAll(async () => {
  await import('../../app/routes/builder');
}, 30_000);

afterEach(() => {
  vi.useRealTimers();
});

function setWindowHeight(height: number) {
  Object.defineProperty(window, 'innerHeight', { value: height, configurable: true });
}

describe('3D builder page', { timeout: 15_000 }, () => {
  it('frames the build URL at 16:9 within the container and the window height minus 140, resized after 250 ms of quiet', async () => {
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1200);
    setWindowHeight(900);
    renderRoute('/3dbuilder');
    const frame = await screen.findByTitle('3D Builder', {}, { timeout: 5000 });
    expect(frame).toHaveAttribute('src', `${window.location.origin}/builder/Build`);
    // 1200 wide fits: 675 high under 900 - 140
    expect(frame).toHaveAttribute('width', '1200');
    expect(frame).toHaveAttribute('height', '675');

    vi.useFakeTimers();
    setWindowHeight(500);
    act(() => {
      window.dispatchEvent(new Event('resize'));
      vi.advanceTimersByTime(200);
      window.dispatchEvent(new Event('resize'));
      vi.advanceTimersByTime(249);
    });
    expect(frame).toHaveAttribute('height', '675');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    // 500 - 140 = 360 high: 640 wide
    expect(frame).toHaveAttribute('width', '640');
    expect(frame).toHaveAttribute('height', '360');
  });
});
