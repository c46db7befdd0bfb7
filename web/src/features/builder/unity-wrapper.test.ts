import { describe, expect, it, vi } from 'vitest';
import { createUnityWrapper, WRAPPER_MESSAGES, type UnityInstance } from './unity-wrapper';

function instance(): UnityInstance {
  return { SendMessage: vi.fn(), SetFullscreen: vi.fn(), Quit: vi.fn(() => Promise.resolve()) };
}

describe('3D wrapper', () => {
  it("refuses every call with the spec's message while there is no instance", async () => {
    const warned: string[] = [];
    const wrapper = createUnityWrapper((message) => warned.push(message));
    expect(wrapper.instance).toBeNull();
    expect(wrapper.requestFullscreen(true)).toBe(false);
    expect(wrapper.requestPointerLock()).toBe(false);
    expect(wrapper.sendMessage('Bridge', 'Receive', '{}')).toBe(false);
    expect(await wrapper.quit()).toBe(false);
    expect(wrapper.takeScreenshot()).toBeNull();
    expect(warned).toEqual([
      'No Unity Instance found.',
      'Unable to Set Fullscreen while Unity is not Instantiated.',
      'Unable to Request Pointer Lock while Unity is not Instantiated or the Canvas is not found.',
      'Unable to Send Message while Unity is not Instantiated.',
      'Unable to Quit Unity while Unity is not Instantiated.',
      'Unable to Take Screenshot while Unity is not Instantiated or Canvas is not found.',
    ]);
    expect(Object.values(WRAPPER_MESSAGES)).toEqual(warned);
  });

  it('passes calls to the attached instance, and lets go of it once it quits', async () => {
    const warned: string[] = [];
    const wrapper = createUnityWrapper((message) => warned.push(message));
    const loaded = instance();
    const canvas = document.createElement('canvas');
    wrapper.attach(loaded, canvas);
    expect(wrapper.loaded).toBe(true);
    expect(wrapper.sendMessage('Bridge', 'Receive', '{"type":"x"}')).toBe(true);
    expect(loaded.SendMessage).toHaveBeenCalledWith('Bridge', 'Receive', '{"type":"x"}');
    expect(wrapper.requestFullscreen(true)).toBe(true);
    expect(loaded.SetFullscreen).toHaveBeenCalledWith(1);
    expect(await wrapper.quit()).toBe(true);
    expect(loaded.Quit).toHaveBeenCalledOnce();
    expect(wrapper.loaded).toBe(false);
    expect(wrapper.sendMessage('Bridge', 'Receive', '{}')).toBe(false);
    expect(warned).toEqual([WRAPPER_MESSAGES.sendMessage]);
  });
});
