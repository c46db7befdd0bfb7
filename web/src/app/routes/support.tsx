export { SupportPage as Component, supportLoader as loader } from '../../features/content/pages/support';
