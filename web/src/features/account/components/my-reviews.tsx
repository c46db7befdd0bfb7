import type { ReactNode } from 'react';
import { PageMeta } from '../../content';
import { useRuntimeConfig } from '../../../lib/runtime-config';

interface MyReviewsPageProps {
  /** The third-party reviews widget, rendered when the runtime config names its script. */
  widget: ReactNode;
}

/** My reviews: the reviews widget's slot, or an empty state without the widget. */
export function MyReviewsPage({ widget }: MyReviewsPageProps) {
  const scriptUrl = useRuntimeConfig()?.reviews.scriptUrl;
  return (
    <div className="page account-page">
      <PageMeta title="My Reviews" />
      <h1>My Reviews</h1>
      {scriptUrl ? widget : <p className="account-empty">You have not written any reviews yet.</p>}
    </div>
  );
}
