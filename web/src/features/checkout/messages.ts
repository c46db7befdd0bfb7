/** The checkout's texts from the spec (sections 2, 4 and 8), word for word. */
export const EMPTY_CART_REDIRECT = 'Your cart is empty, so we have redirected you to the home page';
export const BILLING_FORM_ERRORS = 'Errors in the Billing Form';
export const DEALER_FORM_ERRORS = 'Errors in the Dealer Address Form';
export const RESTRICTED_ITEMS_IN_CART = 'Restricted Items in Cart';
export const RESTRICTED_TITLE = 'You have restricted items in your cart';
export const RESTRICTED_HINT = 'Either remove them or edit your address to continue';
export const RESTRICTED_LIST = 'The following items are restricted in your state or zip code:';
export const RESTRICTED_REMOVED = 'All restricted items have been removed from your cart';
export const ALL_ITEMS_REMOVED = 'All Items have been removed from your cart';
export const ORDER_RECEIVED = 'Thank You! Your order has been received';
export const STEP_BILLING = 'Billing & shipping';
export const STEP_PAYMENT = 'Review & Payment';
