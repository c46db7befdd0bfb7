export { CopyPage as Component, copyLoader as loader } from '../../features/content/pages/copy';
