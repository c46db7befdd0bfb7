export { NotFoundPage as Component } from '../../features/content/pages/not-found';
