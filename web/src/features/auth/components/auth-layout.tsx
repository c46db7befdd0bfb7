import type { ReactNode } from 'react';
import { PageMeta } from '../../content';
import type { AuthContentPage } from '../../content';
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
    <div
      className="auth-page"
      style={background ? { backgroundImage: `url(${JSON.stringify(background)})` } : undefined}
    >
      <PageMeta title={title} metaData={page.metaData} />
      <div className="auth-page__card">
        <h1>{page.header || title}</h1>
        {children}
      </div>
    </div>
  );
}
