import { useId } from 'react';
import { DealerRegistrationForm } from '../registration-form';
import { PageMeta, RichText, pageLoader, useContentPage } from '../../content';

export const dealerRegistrationLoader = pageLoader('dealerregistration');

export function DealerRegistrationPage() {
  const page = useContentPage('dealerregistration');
  const headingId = useId();
  const title = page.title || 'Dealer Registration';
  return (
    <div className="page page--dealer-registration">
      <PageMeta title={title} metaData={page.metaData} />
      <h1 id={headingId}>{title}</h1>
      {page.greeting ? <p className="dealer-registration__greeting">{page.greeting}</p> : null}
      {page.subText.length > 0 ? <RichText content={page.subText} /> : null}
      <DealerRegistrationForm labelledBy={headingId} />
    </div>
  );
}
