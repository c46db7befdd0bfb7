import { PageMeta } from '../components/page-meta';
import { RichText } from '../components/rich-text';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';

export const resourcesLoader = pageLoader('resources');

export function ResourcesPage() {
  const page = useContentPage('resources');
  return (
    <div className="page page--resources">
      <PageMeta metaData={page.metaData} />
      <h1>{page.heading || 'Resources'}</h1>
      {page.subheading ? <p className="page__lead">{page.subheading}</p> : null}
      <RichText content={page.content} />
    </div>
  );
}
