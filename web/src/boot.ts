// The document's only script (see `startAfterFirstPaint` in vite.config.ts). The first screen is
// the server's markup and the stylesheet: the app (React, the router, the page's code) starts
// once that screen has painted, so on a phone's link its scripts come after the page's largest
// image instead of sharing the bandwidth with it, and its work after the first paint.
import { afterFirstPaint } from './boot/after-first-paint';
import { preloadModules, readRouteChunks } from './boot/route-chunks';

const boot = document.querySelector<HTMLScriptElement>('script[data-entry]');
const entry = boot?.dataset.entry ?? '';
const preloads = (boot?.dataset.preload ?? '').split(' ').filter((file) => file !== '');
const serverRendered = Boolean(document.getElementById('root')?.firstElementChild);

// A document without a first screen (the shell) has nothing to wait for.
void (serverRendered ? afterFirstPaint() : Promise.resolve()).then(() => {
  preloadModules([...preloads, ...readRouteChunks()]);
  return import(/* @vite-ignore */ entry);
});
