/**
 * Runs a call once per key for the life of the page, and gives every later caller the same
 * promise: React's StrictMode runs effects twice, and a verification link must be spent once.
 */
const runs = new Map<string, Promise<unknown>>();

export function once<T>(key: string, run: () => Promise<T>): Promise<T> {
  const running = runs.get(key) as Promise<T> | undefined;
  if (running) return running;
  const started = run();
  runs.set(key, started);
  return started;
}
