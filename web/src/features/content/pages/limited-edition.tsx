import { useId } from 'react';
import { AppLink } from '../../../components/ui/app-link';
import { ContentImage } from '../components/content-image';
import { PageMeta } from '../components/page-meta';
import { RichText } from '../components/rich-text';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';
import { NewsletterForm } from '../../newsletter';

export const limitedEditionLoader = pageLoader('limitededition');

export function LimitedEditionPage() {
  const page = useContentPage('limitededition');
  const { current } = page;
  const currentId = useId();
  const stayInformedId = useId();
  const pastId = useId();

  return (
    <div className="page page--limited-edition">
      <PageMeta metaData={page.metaData} />
      <div className="page-banner">
        <h1>{page.bannerTitle || 'Limited Edition'}</h1>
      </div>

      {current ? (
        <section className="limited-edition__current" aria-labelledby={currentId}>
          <ContentImage image={current.image} className="limited-edition__image" />
          <div className="limited-edition__details">
            <h2 id={currentId}>{current.title}</h2>
            <RichText content={current.content} />
            {current.url ? (
              <AppLink to={current.url} className="button">
                Buy Now<span className="visually-hidden">: {current.title}</span>
              </AppLink>
            ) : null}
          </div>
        </section>
      ) : null}

      <section className="newsletter-block" aria-labelledby={stayInformedId}>
        <h2 id={stayInformedId}>Stay Informed</h2>
        <p>Be the first to hear about the next limited edition.</p>
        <NewsletterForm labelledBy={stayInformedId} />
      </section>

      {page.past.length > 0 ? (
        <section className="limited-edition__past" aria-labelledby={pastId}>
          <h2 id={pastId}>Past Limited Editions</h2>
          <ul className="triptychs">
            {page.past.map((edition) => (
              <li key={edition.id} className="triptych">
                <div className="triptych__images">
                  {edition.images.slice(0, 2).map((image, index) => (
                    <ContentImage key={`${image.src}-${String(index)}`} image={image} loading="lazy" />
                  ))}
                </div>
                <div className="triptych__text">
                  <h3>{edition.title}</h3>
                  <RichText content={edition.content} />
                </div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
