export { ResourcesPage as Component, resourcesLoader as loader } from '../../features/content/pages/resources';
