/** Layout: the frame of every page (header, footer, the global loading bar) and its loading flag. */
export { GlobalLoadingIndicator } from './components/global-loading-indicator';
export { SiteFooter } from './components/site-footer';
export { SiteHeader } from './components/site-header';
export { setGlobalLoading } from './loading';
