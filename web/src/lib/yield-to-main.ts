interface Scheduler {
  yield?: () => Promise<void>;
}

/**
 * Lets the browser run what waits (input, a frame, other tasks) before the caller goes on, so
 * start-up work runs as several short tasks instead of one long one: a phone stays responsive
 * while the app starts, and Lighthouse counts none of it as blocking (Total Blocking Time counts
 * each task's time past 50 ms). `scheduler.yield()` where there is one (its continuation runs
 * before other queued tasks), else a zero-delay timer.
 */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
