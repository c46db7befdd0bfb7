export { BuilderPage as Component } from '../../features/builder/pages/builder';
