export { ContactUsPage as Component, contactUsLoader as loader } from '../../features/content/pages/contact-us';
