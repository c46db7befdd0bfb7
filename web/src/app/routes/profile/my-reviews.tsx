import { MyReviewsPage } from '../../../features/account';
import { ReviewsWidget } from '../../../features/reviews';

export function Component() {
  return <MyReviewsPage widget={<ReviewsWidget kind="list" />} />;
}
