/** Content pages: their types, queries and the shared page parts (meta, rich text, breadcrumbs). */
export { Breadcrumbs } from './components/breadcrumbs';
export { PageMeta, defaultTitle, GENERIC_DESCRIPTION } from './components/page-meta';
export { ContentImage } from './components/content-image';
export { RichText } from './components/rich-text';
export { useContentPage } from './hooks';
export { contentKeys, pageLoader, pageQuery } from './queries';
export type * from './types';
