import { useEffect, useId, useRef, useState, type PointerEvent } from 'react';
import { useLocation } from 'react-router';
import { AppLink } from '../../../components/ui/app-link';
import { ChevronIcon } from '../../../components/ui/icons';
import type { Menu, MenuCard, MenuGroup } from '../../content';
import { safeImageSrc } from '../../../lib/safe-url';

/** After a page change the menus stay hidden this long, even under the pointer (spec: hide briefly). */
export const MENU_HIDE_AFTER_NAVIGATION_MS = 600;

interface OpenMenu {
  index: number;
  /** Opened by a click or the keyboard: stays open when the pointer leaves. */
  pinned: boolean;
}

/**
 * The desktop navigation: one disclosure button per content-managed menu, opening a panel with the
 * menu's link groups and cards. Menus open on hover and on click/Enter/Space; Escape closes and
 * returns focus to the button; so do clicks outside. After a page change the menus close and stay
 * hidden briefly, so the panel does not linger under the pointer.
 */
export function MainNav({ menus }: { menus: Menu[] }) {
  const [open, setOpen] = useState<OpenMenu | null>(null);
  const navRef = useRef<HTMLElement>(null);
  const hiddenUntil = useRef(0);
  const location = useLocation();
  const [lastLocationKey, setLastLocationKey] = useState(location.key);
  if (lastLocationKey !== location.key) {
    // a page change closes any open menu (adjusting state while rendering, not in an effect)
    setLastLocationKey(location.key);
    setOpen(null);
  }
  useEffect(() => {
    hiddenUntil.current = Date.now() + MENU_HIDE_AFTER_NAVIGATION_MS;
  }, [location.key]);

  useEffect(() => {
    if (open === null) return;
    const onPointerDown = (event: globalThis.PointerEvent) => {
      if (navRef.current && event.target instanceof Node && !navRef.current.contains(event.target)) {
        setOpen(null);
      }
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      // focus goes back to the button of the menu being closed
      navRef.current?.querySelector<HTMLButtonElement>('button[aria-expanded="true"]')?.focus();
      setOpen(null);
    };
    const onFocusIn = (event: FocusEvent) => {
      // tabbing out of the navigation closes the menu
      if (navRef.current && event.target instanceof Node && !navRef.current.contains(event.target)) {
        setOpen(null);
      }
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('focusin', onFocusIn);
    };
  }, [open]);

  if (menus.length === 0) return <nav aria-label="Main" className="main-nav" />;

  return (
    <nav aria-label="Main" className="main-nav" ref={navRef}>
      <ul className="main-nav__list">
        {menus.map((menu, index) => (
          <MenuItem
            key={menu.title}
            menu={menu}
            open={open?.index === index}
            onHover={(entering) => {
              if (entering) {
                if (Date.now() < hiddenUntil.current) return;
                setOpen((current) => (current?.pinned && current.index !== index ? current : { index, pinned: false }));
              } else {
                setOpen((current) => (current?.index === index && !current.pinned ? null : current));
              }
            }}
            onToggle={() => {
              // a click on a menu opened by hovering keeps it open (the pointer got there first)
              setOpen((current) => (current?.index === index && current.pinned ? null : { index, pinned: true }));
            }}
            onClose={() => {
              setOpen(null);
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
  onHover: (entering: boolean) => void;
  onToggle: () => void;
  onClose: () => void;
}

function MenuItem({ menu, open, onHover, onToggle, onClose }: MenuItemProps) {
  const panelId = useId();
  const isMouse = (event: PointerEvent) => event.pointerType === 'mouse';

  return (
    <li
      className="main-nav__item"
      onPointerEnter={(event) => {
        if (isMouse(event)) onHover(true);
      }}
      onPointerLeave={(event) => {
        if (isMouse(event)) onHover(false);
      }}
    >
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
        <MenuContents menu={menu} onNavigate={onClose} />
      </div>
    </li>
  );
}

/** A menu's 'Shop all' link, link groups and cards; shared by the desktop and the mobile menu. */
export function MenuContents({ menu, onNavigate }: { menu: Menu; onNavigate: () => void }) {
  return (
    <>
      {menu.link ? (
        <AppLink to={menu.link} className="main-nav__all" onClick={onNavigate}>
          Shop all {menu.title}
        </AppLink>
      ) : null}
      {menu.groups.length > 0 ? (
        <div className="main-nav__groups">
          {menu.groups.map((group) => (
            <MenuGroupList key={group.title} group={group} onNavigate={onNavigate} />
          ))}
        </div>
      ) : null}
      {menu.cards.length > 0 ? (
        <ul className="main-nav__cards" aria-label={`Featured ${menu.title}`}>
          {menu.cards.map((card) => (
            <li key={`${card.label}-${card.link}`}>
              <MenuCardLink card={card} onNavigate={onNavigate} />
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

function MenuCardLink({ card, onNavigate }: { card: MenuCard; onNavigate: () => void }) {
  const image = safeImageSrc(card.image.src);
  const hoverImage = safeImageSrc(card.hoverImage.src);
  return (
    <AppLink to={card.link} className="menu-card" onClick={onNavigate}>
      <span className="menu-card__images">
        {image ? <img className="menu-card__image" src={image} alt="" loading="lazy" /> : null}
        {hoverImage ? (
          <img className="menu-card__image menu-card__image--hover" src={hoverImage} alt="" loading="lazy" />
        ) : null}
      </span>
      <span className="menu-card__label">{card.label}</span>
      {card.subtitle ? <span className="menu-card__subtitle">{card.subtitle}</span> : null}
    </AppLink>
  );
}

function MenuGroupList({ group, onNavigate }: { group: MenuGroup; onNavigate: () => void }) {
  const titleId = useId();
  return (
    <div className="main-nav__group">
      <p id={titleId} className="main-nav__group-title">
        {group.title}
      </p>
      <ul aria-labelledby={titleId}>
        {group.links.map((link) => (
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
