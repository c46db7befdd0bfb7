export { ReviewsPage as Component } from '../../features/reviews/pages/reviews';
