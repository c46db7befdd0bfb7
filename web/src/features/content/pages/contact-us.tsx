import { ContentImage } from '../components/content-image';
import { PageMeta } from '../components/page-meta';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';
import { safeHref, safeImageSrc } from '../../../lib/safe-url';

export const contactUsLoader = pageLoader('contactus');

export function ContactUsPage() {
  const page = useContentPage('contactus');
  const addressLines = [page.address1, page.address2, page.address3].filter(Boolean);
  const phoneHref = page.phone ? `tel:${page.phone.replace(/[^\d+]/g, '')}` : null;

  return (
    <div className="page page--contact-us">
      <PageMeta metaData={page.metaData} />
      <h1>{page.heading || 'Contact Us'}</h1>
      <div className="contact-us">
        <ContentImage image={page.imgUrl} className="contact-us__image" />
        <div className="contact-us__details">
          {addressLines.length > 0 ? (
            <address className="contact-us__address">
              {addressLines.map((line, index) => (
                <span key={`${line}-${String(index)}`}>
                  {line}
                  <br />
                </span>
              ))}
            </address>
          ) : null}
          <dl className="contact-us__channels">
            {page.phone ? (
              <div>
                <dt>Phone</dt>
                <dd>{phoneHref ? <a href={phoneHref}>{page.phone}</a> : page.phone}</dd>
              </div>
            ) : null}
            {page.email ? (
              <div>
                <dt>Email</dt>
                <dd>
                  <a href={`mailto:${page.email}`}>{page.email}</a>
                </dd>
              </div>
            ) : null}
            {page.hours ? (
              <div>
                <dt>Hours</dt>
                <dd>{page.hours}</dd>
              </div>
            ) : null}
          </dl>
          {page.socialLinks.length > 0 ? (
            <ul className="contact-us__social" aria-label="Social media">
              {page.socialLinks.map((social) => {
                const href = safeHref(social.url);
                const icon = safeImageSrc(social.iconUrl);
                if (!href) return null;
                return (
                  <li key={social.url}>
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      {icon ? <img src={icon} alt="" width={24} height={24} /> : null}
                      {social.title}
                    </a>
                  </li>
                );
              })}
            </ul>
          ) : null}
        </div>
      </div>
    </div>
  );
}
