import { useId, type ReactNode } from 'react';
import { DownloadIcon } from '../../../components/ui/icons';
import { PageMeta } from '../../content';
import { useContentPage } from '../../content';
import { pageLoader } from '../../content';
import { ImageRequestForm } from '../image-request-form';
import { useObjectUrls } from '../use-object-urls';
import { safeHref } from '../../../lib/safe-url';

export const mediaLibraryLoader = pageLoader('medialibrary');

export function MediaLibraryPage() {
  const page = useContentPage('medialibrary');
  const fileUrls = page.downloads.flatMap((category) =>
    category.items.map((item) => safeHref(item.file.url)).filter((url): url is string => url !== null),
  );
  const hrefOf = useObjectUrls(fileUrls);
  const catalogHref = safeHref(page.catalog?.url);
  const downloadsId = useId();
  const requestId = useId();

  return (
    <div className="page page--media-library">
      <PageMeta metaData={page.metaData} />
      <div className="page-banner media-library__header">
        <h1>{page.heading || 'Media Library'}</h1>
        {catalogHref ? (
          <a className="button" href={catalogHref} download target="_blank" rel="noopener noreferrer">
            <DownloadIcon size={18} />
            {page.catalog?.label || 'Download Catalog'}
          </a>
        ) : null}
      </div>

      {page.downloads.length > 0 ? (
        <section className="media-library__downloads" aria-labelledby={downloadsId}>
          <h2 id={downloadsId}>Downloads</h2>
          {page.downloads.map((category) => (
            <DownloadCategory key={category.category} title={category.category}>
              {category.items.map((item) => {
                const url = safeHref(item.file.url);
                const type = item.file.ext.replace(/^\./, '').toUpperCase();
                return (
                  <li key={`${item.title}-${item.file.url}`} className="media-library__item">
                    <span className="media-library__title">{item.title}</span>
                    {url ? (
                      <a href={hrefOf(url)} download={item.file.name || true}>
                        <DownloadIcon size={18} />
                        Download <span className="visually-hidden">{item.title}</span>
                        {type ? ` (${type})` : null}
                      </a>
                    ) : null}
                  </li>
                );
              })}
            </DownloadCategory>
          ))}
        </section>
      ) : null}

      <section className="media-library__request" aria-labelledby={requestId}>
        <h2 id={requestId}>{page.imageRequest.heading || 'Product Image Request'}</h2>
        {page.imageRequest.text ? <p>{page.imageRequest.text}</p> : null}
        <ImageRequestForm labelledBy={requestId} />
      </section>
    </div>
  );
}

function DownloadCategory({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <div className="media-library__category">
      <h3 id={id}>{title}</h3>
      <ul aria-labelledby={id}>{children}</ul>
    </div>
  );
}
