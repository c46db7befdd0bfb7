/**
 * The back-in-stock form's heading: shown by the form and by its placeholder while the form's code
 * loads. Its own module so that the lazy form and the eager placeholder share it without importing
 * each other (no import cycle).
 */
export const STOCK_ALERT_TITLE = 'Out of stock: notify me when it is back';
