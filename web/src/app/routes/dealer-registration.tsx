export {
  DealerRegistrationPage as Component,
  dealerRegistrationLoader as loader,
} from '../../features/dealers/pages/dealer-registration';
