import { NavLink, Outlet, useLocation } from 'react-router';

const accountLinks = [
  { to: '/profile', label: 'My Account', end: true },
  { to: '/profile/orders', label: 'My Orders', end: false },
  { to: '/profile/address-book', label: 'Address Book', end: false },
  { to: '/profile/discount-programs', label: 'Discount Programs', end: false },
] as const;

/** The account area frame: side menu, a Back link on child pages, the child page. */
export function Component() {
  const { pathname } = useLocation();
  const isChild = pathname.replace(/\/+$/, '').toLowerCase() !== '/profile';
  return (
    <div className="account">
      <nav aria-label="Account" className="account__nav">
        <ul>
          {accountLinks.map((link) => (
            <li key={link.to}>
              <NavLink to={link.to} end={link.end}>
                {link.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="account__content">
        {isChild ? (
          <p>
            <NavLink to="/profile" end>
              Back
            </NavLink>
          </p>
        ) : null}
        <Outlet />
      </div>
    </div>
  );
}
