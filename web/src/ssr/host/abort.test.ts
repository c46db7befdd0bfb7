import { describe, expect, it } from 'vitest';
import { HostAbortController, HostAbortSignal } from './abort';

describe('HostAbortController: the render’s AbortController and AbortSignal', () => {
  it('aborts once: onabort and the listeners run once, in order, with the reason', () => {
    const controller = new HostAbortController();
    const { signal } = controller;
    const seen: string[] = [];
    signal.onabort = (event) => seen.push(`onabort ${event.type}`);
    const listener = () => seen.push('listener');
    signal.addEventListener('abort', listener);
    signal.addEventListener('abort', listener); // the same listener is added once
    signal.addEventListener('abort', () => seen.push('once'), { once: true });
    expect(signal.aborted).toBe(false);
    expect(() => signal.throwIfAborted()).not.toThrow();

    controller.abort('gone');
    controller.abort('again');
    expect(seen).toEqual(['onabort abort', 'listener', 'once']);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
    expect(() => signal.throwIfAborted()).toThrow();
  });

  it('gives an AbortError as the reason when none is given', () => {
    const controller = new HostAbortController();
    controller.abort();
    expect(controller.signal.reason).toBeInstanceOf(Error);
    expect((controller.signal.reason as Error).name).toBe('AbortError');
  });

  it('calls no removed listener, and no listener for another event', () => {
    const controller = new HostAbortController();
    let calls = 0;
    const listener = () => (calls += 1);
    controller.signal.addEventListener('abort', listener);
    controller.signal.removeEventListener('abort', listener);
    controller.signal.addEventListener('other', listener);
    controller.abort();
    expect(calls).toBe(0);
  });

  it('makes an already aborted signal with AbortSignal.abort', () => {
    const signal = HostAbortSignal.abort('why');
    expect(signal).toBeInstanceOf(HostAbortSignal);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('why');
  });
});
