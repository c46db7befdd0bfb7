export {
  LimitedEditionPage as Component,
  limitedEditionLoader as loader,
} from '../../features/content/pages/limited-edition';
