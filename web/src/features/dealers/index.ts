/** Dealers: the locator (search, list and map) and the dealer registration form. */
export { DealerLocator } from './dealer-locator';
export { DealerRegistrationForm } from './registration-form';
export { dealerKeys, dealersLoader, dealersQuery } from './queries';
