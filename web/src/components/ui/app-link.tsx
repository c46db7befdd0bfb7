import type { AnchorHTMLAttributes, ReactNode } from 'react';
import { Link } from 'react-router';
import { isExternalHref, needsNewDocument } from '../../lib/paths';
import { safeHref } from '../../lib/safe-url';

interface AppLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  children: ReactNode;
}

/**
 * A router link for in-app paths, a plain anchor for anything else (other sites, files, mailto:).
 * A URL with an unsafe scheme (`javascript:` and the like) renders as plain text, never as a link.
 * A path that needs a document of its own (the 3D builder, for its CSP) loads one.
 */
export function AppLink({ to, children, ...rest }: AppLinkProps) {
  const href = safeHref(to);
  if (href === null) return <span className={rest.className}>{children}</span>;
  if (isExternalHref(href)) {
    return (
      <a href={href} {...rest}>
        {children}
      </a>
    );
  }
  return (
    <Link to={href} reloadDocument={needsNewDocument(href)} {...rest}>
      {children}
    </Link>
  );
}
