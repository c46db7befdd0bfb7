export { FaqPage as Component, faqLoader as loader } from '../../features/content/pages/faq';
