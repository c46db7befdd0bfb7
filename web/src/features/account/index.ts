/**
 * The account area (spec section 2.6): the guarded frame, its pages, and the verification pages
 * of the e-mailed links. Route modules render these; other features use the queries.
 */
export { AccountLayout, accountLoader, backPath } from './components/account-layout';
export { AccountInformationPage } from './components/account-information';
export { EditInformationPage } from './components/edit-information';
export { UpdatePasswordPage } from './components/update-password';
export { NewsletterPage } from './components/newsletter-preference';
export { AddressBookPage } from './components/address-book';
export { AddressFormPage } from './components/address-form';
export { OrdersPage } from './components/orders';
export { OrderDetailsPage } from './components/order-details';
export { DiscountProgramsPage } from './components/discount-programs';
export { ProDealPage } from './components/pro-deal';
export { LeMilPage } from './components/le-mil';
export { MyReviewsPage } from './components/my-reviews';
export { VerifyPage, type VerificationKind } from './components/verify-page';
export { accountKeys, accountQuery, orderQuery, useAccount } from './queries';
