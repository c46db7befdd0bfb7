import { BackdropImage } from '../../../components/ui/backdrop-image';
import { safeImageSrc } from '../../../lib/safe-url';
import type { CopyPage } from '../types';
import { PageMeta } from './page-meta';
import { RichText } from './rich-text';

/** Terms of service and privacy policy: background image, heading, text and rich text. */
export function CopyPageView({ page, fallbackTitle }: { page: CopyPage; fallbackTitle: string }) {
  const background = safeImageSrc(page.backgroundImage.src);
  return (
    <div className="page page--copy">
      <PageMeta title={fallbackTitle} metaData={page.metaData} />
      <div className="page-banner page-banner--image has-backdrop">
        <BackdropImage src={background} priority />
        <h1>{page.heading || fallbackTitle}</h1>
      </div>
      {page.text ? <p className="page__lead">{page.text}</p> : null}
      <RichText content={page.richText} />
    </div>
  );
}
