export {
  TermsOfServicePage as Component,
  termsOfServiceLoader as loader,
} from '../../features/content/pages/terms-of-service';
