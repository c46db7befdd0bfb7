import type { AnchorHTMLAttributes, ReactNode } from 'react';
import { Link } from 'react-router';
import { isExternalHref } from '../../lib/paths';

interface AppLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  children: ReactNode;
}

/** A router link for in-app paths, a plain anchor for anything else (other sites, files, mailto:). */
export function AppLink({ to, children, ...rest }: AppLinkProps) {
  if (isExternalHref(to)) {
    return (
      <a href={to} {...rest}>
        {children}
      </a>
    );
  }
  return (
    <Link to={to} {...rest}>
      {children}
    </Link>
  );
}
