import { memo } from 'react';
import { Link } from 'react-router';
import { MapPinIcon, UserIcon } from '../../../components/ui/icons';
import { VisuallyHidden } from '../../../components/ui/visually-hidden';
import { paths } from '../../../lib/paths';
import { CartButton } from '../../cart';
import type { AppPage } from '../../content';
import { SearchToggle } from '../../search';
import { useSession } from '../../session';
import { MainNav } from './main-nav';
import { MobileMenu } from './mobile-menu';
import { safeImageSrc } from '../../../lib/safe-url';

interface SiteHeaderProps {
  page: AppPage;
  brandName: string;
}

/**
 * Desktop: logo, the four menus, and icons for search, cart (a button with its item count that
 * opens the cart drawer), dealer locator and account. Mobile: hamburger menu (with the dealer-locator and account entries), logo, search
 * and cart. The two layouts switch with CSS.
 */
function SiteHeaderFrame({ page, brandName }: SiteHeaderProps) {
  const logoAlt = page.logo.alt || brandName || 'Home';
  const { signedIn } = useSession();
  const accountHref = signedIn ? paths.account() : paths.login();
  const accountLabel = signedIn ? 'Account' : 'Sign in';

  const logoSrc = safeImageSrc(page.logo.src);
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <MobileMenu menus={page.menus} accountHref={accountHref} accountLabel={accountLabel} />
        <Link to={paths.home()} className="site-header__logo">
          {logoSrc ? <img src={logoSrc} alt={logoAlt} /> : <span>{brandName || 'Home'}</span>}
        </Link>
        <MainNav menus={page.menus} />
        <div className="site-header__actions">
          <SearchToggle />
          <CartButton />
          <Link to={paths.dealerLocator()} className="icon-button site-header__desktop-only">
            <MapPinIcon />
            <VisuallyHidden>Dealer locator</VisuallyHidden>
          </Link>
          <Link to={accountHref} className="icon-button site-header__desktop-only">
            <UserIcon />
            <VisuallyHidden>{accountLabel}</VisuallyHidden>
          </Link>
        </div>
      </div>
    </header>
  );
}

/**
 * Memoised: the layout renders again whenever the cart, the consent or the idle trigger changes,
 * and the frame's hundred-odd links gave a phone's main thread long tasks each time; its props
 * (the content page, the brand name) change only with the content.
 */
export const SiteHeader = memo(SiteHeaderFrame);
