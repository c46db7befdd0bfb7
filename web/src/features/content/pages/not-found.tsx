import { Link, useLocation } from 'react-router';
import { PageMeta } from '../components/page-meta';

export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <div className="page page--not-found">
      <PageMeta />
      <h1>Page not found</h1>
      <p>No route matches URL &quot;{pathname}&quot;</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </div>
  );
}
