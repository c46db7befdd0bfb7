import { PageMeta } from '../../content';
import { ReviewsWidget } from '../reviews-widget';

export function ReviewsPage() {
  return (
    <div className="page page--reviews">
      <PageMeta />
      <h1>Customer Reviews</h1>
      <ReviewsWidget kind="list" />
    </div>
  );
}
