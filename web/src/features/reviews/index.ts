export { ReviewsWidget } from './reviews-widget';
