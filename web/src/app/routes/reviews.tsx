import { PageMeta } from '../../features/content/components/page-meta';
import { ReviewsWidget } from '../../features/reviews/reviews-widget';

export function Component() {
  return (
    <div className="page page--reviews">
      <PageMeta />
      <h1>Customer Reviews</h1>
      <ReviewsWidget kind="list" />
    </div>
  );
}
