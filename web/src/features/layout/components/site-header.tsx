import { Link } from 'react-router';
import { CartIcon, MapPinIcon, UserIcon } from '../../../components/ui/icons';
import { VisuallyHidden } from '../../../components/ui/visually-hidden';
import { paths } from '../../../lib/paths';
import { useCartItemCount } from '../../cart';
import type { AppPage } from '../../content';
import { SearchToggle } from '../../search';
import { useSession } from '../../session';
import { MainNav } from './main-nav';
import { MobileMenu } from './mobile-menu';

interface SiteHeaderProps {
  page: AppPage;
  brandName: string;
}

/**
 * Desktop: logo, the four menus, and icons for search, cart (with its item count), dealer locator
 * and account. Mobile: hamburger menu (with the dealer-locator and account entries), logo, search
 * and cart. The two layouts switch with CSS.
 */
export function SiteHeader({ page, brandName }: SiteHeaderProps) {
  const logoAlt = page.logo.alt || brandName || 'Home';
  const { signedIn } = useSession();
  const accountHref = signedIn ? paths.account() : paths.login();
  const accountLabel = signedIn ? 'Account' : 'Sign in';
  const itemCount = useCartItemCount();
  const cartLabel = `Cart, ${String(itemCount)} ${itemCount === 1 ? 'item' : 'items'}`;

  return (
    <header className="site-header">
      <div className="site-header__inner">
        <MobileMenu menus={page.menus} accountHref={accountHref} accountLabel={accountLabel} />
        <Link to={paths.home()} className="site-header__logo">
          {page.logo.src ? <img src={page.logo.src} alt={logoAlt} /> : <span>{brandName || 'Home'}</span>}
        </Link>
        <MainNav menus={page.menus} />
        <div className="site-header__actions">
          <SearchToggle />
          {/* The cart drawer (issue of the cart) opens from here; until then the icon goes to checkout. */}
          <Link to={paths.checkout()} className="icon-button site-header__cart">
            <CartIcon />
            {itemCount > 0 ? (
              <span className="site-header__badge" aria-hidden="true">
                {itemCount > 99 ? '99+' : itemCount}
              </span>
            ) : null}
            <VisuallyHidden>{cartLabel}</VisuallyHidden>
          </Link>
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
