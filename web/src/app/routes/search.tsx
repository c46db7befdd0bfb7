import { useParams } from 'react-router';
import { PageMeta } from '../../features/content/components/page-meta';

export function Component() {
  const query = useParams().query ?? '';
  const title = `Results for "${query}"`;
  return (
    <div className="page page--search">
      <PageMeta title={title} />
      <h1>{title}</h1>
    </div>
  );
}
