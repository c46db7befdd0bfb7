import { useEffect, useId } from 'react';
import { Link, useLocation } from 'react-router';
import { ContentImage } from '../components/content-image';
import { PageMeta } from '../components/page-meta';
import { RichText } from '../components/rich-text';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';
import { safeHref } from '../../../lib/safe-url';

/** The careers section's anchor: /about-us#careers. */
export const CAREERS_ID = 'careers';

export const aboutUsLoader = pageLoader('aboutus');

export function AboutUsPage() {
  const page = useContentPage('aboutus');
  const positions = page.lookingForListContent;
  const hasCareers = positions.length > 0;
  const videoHref = safeHref(page.headingVideoUrl);
  const careersHeadingId = useId();
  const talkHeadingId = useId();
  const { hash } = useLocation();

  // the careers section can appear after the first render (content refetched): scroll to it then
  useEffect(() => {
    if (hash === `#${CAREERS_ID}` && hasCareers) document.getElementById(CAREERS_ID)?.scrollIntoView();
  }, [hash, hasCareers]);

  return (
    <div className="page page--about-us">
      <PageMeta metaData={page.metaData} />
      <section className="about-us__banner">
        <ContentImage image={page.headingImageUrl} className="about-us__banner-image" />
        <div className="about-us__banner-text">
          <h1>{page.headingTitle || 'About Us'}</h1>
          {videoHref ? (
            <a className="button" href={videoHref} target="_blank" rel="noopener noreferrer">
              Watch the video <span className="visually-hidden">(opens in a new tab)</span>
            </a>
          ) : null}
        </div>
      </section>

      <RichText content={page.simpleCopySection} className="about-us__copy" />

      {hasCareers ? (
        <section id={CAREERS_ID} className="about-us__careers" aria-labelledby={careersHeadingId}>
          <ContentImage image={page.lookingForImageUrl} className="about-us__image" />
          <div>
            <h2 id={careersHeadingId}>{page.lookingForHeading || 'Careers'}</h2>
            <RichText content={page.lookingForSubHeading} />
            <ul className="about-us__positions">
              {positions.map((position) => (
                <li key={position}>{position}</li>
              ))}
            </ul>
          </div>
        </section>
      ) : null}

      <section className="about-us__talk" aria-labelledby={talkHeadingId}>
        <ContentImage image={page.wantToTalkImageUrl} className="about-us__image" />
        <div>
          <h2 id={talkHeadingId}>{page.wantToTalkHeading || 'Want to Talk?'}</h2>
          {page.wantToTalkContent ? <p>{page.wantToTalkContent}</p> : null}
          <Link to="/contact-us" className="button">
            Contact Us
          </Link>
        </div>
      </section>
    </div>
  );
}
