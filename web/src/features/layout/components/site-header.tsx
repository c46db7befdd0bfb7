import { Link } from 'react-router';
import { CartIcon, MapPinIcon, UserIcon } from '../../../components/ui/icons';
import { VisuallyHidden } from '../../../components/ui/visually-hidden';
import { paths } from '../../../lib/paths';
import type { AppPage } from '../../content/types';
import { MainNav } from './main-nav';
import { SearchToggle } from './search-toggle';

interface SiteHeaderProps {
  page: AppPage;
  brandName: string;
}

export function SiteHeader({ page, brandName }: SiteHeaderProps) {
  const logoAlt = page.logo.alt || brandName || 'Home';
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to={paths.home()} className="site-header__logo">
          {page.logo.src ? <img src={page.logo.src} alt={logoAlt} /> : <span>{brandName || 'Home'}</span>}
        </Link>
        <MainNav menus={page.menus} />
        <div className="site-header__actions">
          <SearchToggle />
          {/* The cart drawer (a dialog with the item-count badge) replaces this link. */}
          <Link to={paths.checkout()} className="icon-button">
            <CartIcon />
            <VisuallyHidden>Cart</VisuallyHidden>
          </Link>
          <Link to={paths.dealerLocator()} className="icon-button">
            <MapPinIcon />
            <VisuallyHidden>Dealer locator</VisuallyHidden>
          </Link>
          <Link to={paths.account()} className="icon-button">
            <UserIcon />
            <VisuallyHidden>Account</VisuallyHidden>
          </Link>
        </div>
      </div>
    </header>
  );
}
