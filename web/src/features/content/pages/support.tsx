import { AppLink } from '../../../components/ui/app-link';
import { ContentImage } from '../components/content-image';
import { PageMeta } from '../components/page-meta';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';

export const supportLoader = pageLoader('support');

export function SupportPage() {
  const page = useContentPage('support');
  return (
    <div className="page page--support">
      <PageMeta metaData={page.metaData} />
      <h1>{page.heading || 'Support'}</h1>
      {page.subheading ? <p className="page__lead">{page.subheading}</p> : null}
      {page.cards.length > 0 ? (
        <ul className="card-grid">
          {page.cards.map((card) => (
            <li key={card.id}>
              <AppLink to={card.link} className="support-card">
                <ContentImage image={card.image} decorative loading="lazy" />
                <span className="support-card__title">{card.title}</span>{' '}
                {card.subtitle ? <span className="support-card__subtitle">{card.subtitle}</span> : null}
              </AppLink>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
