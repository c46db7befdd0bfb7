export { AboutUsPage as Component, aboutUsLoader as loader } from '../../features/content/pages/about-us';
