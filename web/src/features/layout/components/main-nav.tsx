import { useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { AppLink } from '../../../components/ui/app-link';
import { ChevronIcon } from '../../../components/ui/icons';
import type { Menu } from '../../content/types';

/**
 * The main navigation: one disclosure button per content-managed menu, opening a panel with the
 * menu's link groups and cards. Escape closes and returns focus; so do clicks outside and
 * navigation.
 */
export function MainNav({ menus }: { menus: Menu[] }) {
  const [openIndex, setOpenIndex] = useState<number | null>(null);
  const navRef = useRef<HTMLElement>(null);
  const location = useLocation();
  const [lastLocationKey, setLastLocationKey] = useState(location.key);
  if (lastLocationKey !== location.key) {
    // a page change closes any open menu (adjusting state while rendering, not in an effect)
    setLastLocationKey(location.key);
    setOpenIndex(null);
  }

  useEffect(() => {
    if (openIndex === null) return;
    const onPointerDown = (event: PointerEvent) => {
      if (navRef.current && event.target instanceof Node && !navRef.current.contains(event.target)) {
        setOpenIndex(null);
      }
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      // focus goes back to the button of the menu being closed
      navRef.current?.querySelector<HTMLButtonElement>('button[aria-expanded="true"]')?.focus();
      setOpenIndex(null);
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [openIndex]);

  if (menus.length === 0) return <nav aria-label="Main" className="main-nav" />;

  return (
    <nav aria-label="Main" className="main-nav" ref={navRef}>
      <ul className="main-nav__list">
        {menus.map((menu, index) => (
          <MenuItem
            key={menu.title}
            menu={menu}
            open={openIndex === index}
            onToggle={() => {
              setOpenIndex((current) => (current === index ? null : index));
            }}
            onClose={() => {
              setOpenIndex(null);
            }}
          />
        ))}
      </ul>
    </nav>
  );
}

interface MenuItemProps {
  menu: Menu;
  open: boolean;
  onToggle: () => void;
  onClose: () => void;
}

function MenuItem({ menu, open, onToggle, onClose }: MenuItemProps) {
  const panelId = useId();

  return (
    <li className="main-nav__item">
      <button
        type="button"
        className="main-nav__button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={onToggle}
      >
        {menu.title}
        <ChevronIcon size={16} direction={open ? 'up' : 'down'} />
      </button>
      <div id={panelId} className="main-nav__panel" hidden={!open}>
        {menu.link ? (
          <AppLink to={menu.link} className="main-nav__all" onClick={onClose}>
            Shop all {menu.title}
          </AppLink>
        ) : null}
        {menu.groups.length > 0 ? (
          <div className="main-nav__groups">
            {menu.groups.map((group) => (
              <MenuGroupList key={group.title} title={group.title} links={group.links} onNavigate={onClose} />
            ))}
          </div>
        ) : null}
        {menu.cards.length > 0 ? (
          <ul className="main-nav__cards">
            {menu.cards.map((card) => (
              <li key={`${card.label}-${card.link}`}>
                <AppLink to={card.link} className="menu-card" onClick={onClose}>
                  <span className="menu-card__images">
                    {card.image.src ? <img className="menu-card__image" src={card.image.src} alt={card.image.alt} /> : null}
                    {card.hoverImage.src ? (
                      <img className="menu-card__image menu-card__image--hover" src={card.hoverImage.src} alt="" />
                    ) : null}
                  </span>
                  <span className="menu-card__label">{card.label}</span>
                  {card.subtitle ? <span className="menu-card__subtitle">{card.subtitle}</span> : null}
                </AppLink>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </li>
  );
}

function MenuGroupList({
  title,
  links,
  onNavigate,
}: {
  title: string;
  links: Menu['groups'][number]['links'];
  onNavigate: () => void;
}) {
  const titleId = useId();
  return (
    <div className="main-nav__group">
      <p id={titleId} className="main-nav__group-title">
        {title}
      </p>
      <ul aria-labelledby={titleId}>
        {links.map((link) => (
          <li key={`${link.label}-${link.link}`}>
            <AppLink to={link.link} onClick={onNavigate}>
              {link.label}
            </AppLink>
          </li>
        ))}
      </ul>
    </div>
  );
}
