export { HomePage as Component, homeLoader as loader } from '../../features/home/pages/home';
