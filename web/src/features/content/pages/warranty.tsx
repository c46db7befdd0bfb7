import { Breadcrumbs } from '../components/breadcrumbs';
import { PageMeta } from '../components/page-meta';
import { RichText } from '../components/rich-text';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';

export const warrantyLoader = pageLoader('warranty');

export function WarrantyPage() {
  const page = useContentPage('warranty');
  return (
    <div className="page page--warranty">
      <PageMeta metaData={page.metaData} />
      <Breadcrumbs items={page.breadcrumbs} />
      <h1>{page.title || 'Warranty'}</h1>
      {page.sections.map((section) => (
        <section key={section.id} className="content-section">
          {section.header ? <h2>{section.header}</h2> : null}
          <RichText content={section.content} />
        </section>
      ))}
    </div>
  );
}
