import { describe, expect, it } from 'vitest';
import { VirtualTimers } from './timers';

// Our own clock: these run the class directly, never the host's (or Node's) globals.
describe('VirtualTimers: the render’s timers on a virtual clock', () => {
  it('runs timers by due time, equals in the order scheduled, with their arguments', () => {
    const timers = new VirtualTimers();
    const ran: string[] = [];
    timers.setTimeout(() => ran.push('late'), 50);
    timers.setTimeout((what) => ran.push(String(what)), 10, 'first at 10');
    timers.setTimeout(() => ran.push('second at 10'), 10);
    timers.setTimeout(() => ran.push('now'));
    while (timers.runNext());
    expect(ran).toEqual(['now', 'first at 10', 'second at 10', 'late']);
    expect(timers.runNext()).toBe(false);
  });

  it('measures a delay from the time the timer was set, not from zero', () => {
    const timers = new VirtualTimers();
    const ran: string[] = [];
    timers.setTimeout(() => {
      ran.push('a at 100');
      timers.setTimeout(() => ran.push('c at 110'), 10);
    }, 100);
    timers.setTimeout(() => ran.push('b at 105'), 105);
    while (timers.runNext());
    expect(ran).toEqual(['a at 100', 'b at 105', 'c at 110']);
  });

  it('never runs a cleared timer, and an interval until it is cleared', () => {
    const timers = new VirtualTimers();
    const ran: number[] = [];
    const cleared = timers.setTimeout(() => ran.push(-1), 5);
    timers.clearTimeout(cleared);
    let ticks = 0;
    const interval = timers.setInterval(() => {
      ticks += 1;
      ran.push(ticks);
      if (ticks === 3) timers.clearTimeout(interval);
    }, 0);
    let steps = 0;
    while (timers.runNext()) steps += 1;
    expect(ran).toEqual([1, 2, 3]);
    expect(steps).toBe(3);
  });

  it('drops every timer on reset (what one render scheduled never runs in the next)', () => {
    const timers = new VirtualTimers();
    let ran = false;
    timers.setTimeout(() => (ran = true), 1);
    timers.setInterval(() => (ran = true), 1);
    expect(timers.pending).toBe(2);
    timers.reset();
    expect(timers.runNext()).toBe(false);
    expect(ran).toBe(false);
  });
});
