/**
 * `setTimeout` and `setInterval` on a virtual clock, for the server render's engine (QuickJS has
 * no timers and no event loop). The BFF advances the clock only when no promise job is left, by
 * running the earliest timer (`runNext`): a render never waits for wall time, and what it
 * schedules runs in the order a browser would run it.
 *
 * Our own: a maintained polyfill schedules on the host's real timers, which the engine lacks.
 */

interface Timer {
  id: number;
  at: number;
  run: () => void;
}

export class VirtualTimers {
  private clock = 0;
  private nextId = 1;
  private timers: Timer[] = [];

  readonly setTimeout = (callback: (...args: unknown[]) => void, delay = 0, ...args: unknown[]): number => {
    const id = this.nextId++;
    this.timers.push({ id, at: this.clock + Math.max(0, delay || 0), run: () => callback(...args) });
    return id;
  };

  /** Also `clearInterval`: both share one id space, as in a browser. */
  readonly clearTimeout = (id: number | undefined): void => {
    this.timers = this.timers.filter((timer) => timer.id !== id);
  };

  readonly setInterval = (callback: (...args: unknown[]) => void, delay = 0, ...args: unknown[]): number => {
    const id = this.nextId++;
    const schedule = () => {
      // at least 1 unit apart, so an interval cannot keep the clock still forever
      this.timers.push({
        id,
        at: this.clock + Math.max(1, delay || 0),
        run: () => {
          schedule();
          callback(...args);
        },
      });
    };
    schedule();
    return id;
  };

  /** Runs the earliest timer (the first scheduled among equals), advancing the clock to it: false when none is left. */
  runNext(): boolean {
    let earliest = -1;
    let at = Infinity;
    this.timers.forEach((timer, index) => {
      if (timer.at < at) {
        earliest = index;
        at = timer.at;
      }
    });
    if (earliest < 0) return false;
    const [timer] = this.timers.splice(earliest, 1);
    if (!timer) return false;
    this.clock = Math.max(this.clock, timer.at);
    timer.run();
    return true;
  }

  /** Drops every timer (between renders: what one render scheduled never runs in the next). */
  reset(): void {
    this.timers = [];
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.timers.length;
  }
}
