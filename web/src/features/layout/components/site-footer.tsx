import { lazy, memo, Suspense, useId } from 'react';
import { AppLink } from '../../../components/ui/app-link';
import { ChevronIcon, DownloadIcon } from '../../../components/ui/icons';
import { useAfterFirstScreen } from '../../../lib/idle';
import { prefersReducedMotion } from '../../../lib/media';
import { safeHref, safeImageSrc } from '../../../lib/safe-url';
import type { FooterPage } from '../../content';
import { splitIntoColumns } from '../footer-columns';

// the form (react-hook-form, zod, captcha) loads after the first screen: the footer is below the fold
const NewsletterForm = lazy(() => import('../../newsletter').then((module) => ({ default: module.NewsletterForm })));

interface SiteFooterProps {
  page: FooterPage;
  brandName: string;
}

function backToTop() {
  window.scrollTo({ top: 0, behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
  // keyboard users continue from the top of the page, not from the footer
  document.getElementById('skip-link')?.focus({ preventScroll: true });
}

function SiteFooterFrame({ page, brandName }: SiteFooterProps) {
  const columns = splitIntoColumns(page.navLinks);
  const downloadHref = safeHref(page.downloadAsset.url);
  const logoSrc = safeImageSrc(page.logo.src);
  const newsletterHeadingId = useId();
  const later = useAfterFirstScreen();

  return (
    <footer className="site-footer">
      <div className="site-footer__top">
        <button type="button" className="site-footer__back-to-top" onClick={backToTop}>
          <ChevronIcon size={16} direction="up" />
          Back To Top
        </button>
      </div>

      <section className="site-footer__newsletter" aria-labelledby={newsletterHeadingId}>
        <h2 id={newsletterHeadingId} className="site-footer__heading">
          STAY UPDATED
        </h2>
        <p>Don&apos;t miss out on product launches, events, and free SWAG.</p>
        <Suspense fallback={null}>{later ? <NewsletterForm labelledBy={newsletterHeadingId} /> : null}</Suspense>
      </section>

      <div className="site-footer__inner">
        <div className="site-footer__brand">
          {logoSrc ? <img src={logoSrc} alt={page.logo.alt || brandName} loading="lazy" decoding="async" /> : null}
          {downloadHref ? (
            <a
              className="button button--outline"
              href={downloadHref}
              download
              target="_blank"
              rel="noopener noreferrer"
            >
              <DownloadIcon size={18} />
              {page.downloadAsset.label || 'Download Product Guide'}
            </a>
          ) : null}
        </div>

        {page.navLinks.length > 0 ? (
          <nav aria-label="Footer" className="site-footer__nav">
            {columns.map((column, index) =>
              column.length > 0 ? (
                <ul key={index} className="site-footer__column">
                  {column.map((link) => (
                    <li key={`${link.label}-${link.link}`}>
                      <AppLink to={link.link}>{link.label}</AppLink>
                    </li>
                  ))}
                </ul>
              ) : null,
            )}
          </nav>
        ) : null}

        {page.socialLinks.length > 0 ? (
          <ul className="site-footer__social" aria-label="Social media">
            {page.socialLinks.map((social) => {
              const href = safeHref(social.url);
              const icon = safeImageSrc(social.icon.src);
              if (!href) return null;
              return (
                <li key={social.url}>
                  <a href={href} target="_blank" rel="noopener noreferrer" aria-label={social.title}>
                    {icon ? (
                      <img src={icon} alt="" width={24} height={24} loading="lazy" decoding="async" />
                    ) : (
                      social.title
                    )}
                  </a>
                </li>
              );
            })}
          </ul>
        ) : null}
      </div>

      {page.bottomTexts.length > 0 ? (
        <ul className="site-footer__legal" aria-label="Legal">
          {page.bottomTexts.map((item) => (
            <li key={`${item.label}-${item.link}`}>
              {item.link ? <AppLink to={item.link}>{item.label}</AppLink> : <span>{item.label}</span>}
            </li>
          ))}
        </ul>
      ) : null}
    </footer>
  );
}

/**
 * Memoised: the layout renders again whenever the cart, the consent or the idle trigger changes,
 * and the frame's hundred-odd links gave a phone's main thread long tasks each time; its props
 * (the content page, the brand name) change only with the content.
 */
export const SiteFooter = memo(SiteFooterFrame);
