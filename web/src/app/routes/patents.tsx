export { PatentsPage as Component, patentsLoader as loader } from '../../features/content/pages/patents';
