import type { ReactNode } from 'react';
import { PageMeta } from '../../content';
import type { AuthContentPage } from '../../content';
import { BackdropImage } from '../../../components/ui/backdrop-image';
import { safeImageSrc } from '../../../lib/safe-url';

interface AuthLayoutProps {
  page: AuthContentPage;
  /** The page's title, and its header when the content service has none. */
  title: string;
  children: ReactNode;
}

/** The sign-in pages' frame: the content-managed background image and header around a form. */
export function AuthLayout({ page, title, children }: AuthLayoutProps) {
  const background = safeImageSrc(page.backgroundImage.src);
  return (
    <div className="auth-page has-backdrop">
      <BackdropImage src={background} priority />
      <PageMeta title={title} metaData={page.metaData} />
      <div className="auth-page__card">
        <h1>{page.header || title}</h1>
        {children}
      </div>
    </div>
  );
}
