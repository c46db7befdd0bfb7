/** Checkout and the order confirmation (issue 13): the pages and the queries their loaders prime. */
export { CheckoutPage } from './components/checkout-page';
export { ConfirmationPage } from './components/confirmation-page';
export { orderQuery, shippingMethodsQuery } from './api';
