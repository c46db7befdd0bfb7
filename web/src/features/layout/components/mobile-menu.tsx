import { useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { ChevronIcon, MapPinIcon, MenuIcon, UserIcon } from '../../../components/ui/icons';
import { paths } from '../../../lib/paths';
import type { Menu } from '../../content';
import { MenuContents } from './main-nav';

interface MobileMenuProps {
  menus: Menu[];
  accountHref: string;
  accountLabel: string;
}

/**
 * The mobile navigation: a hamburger button that reveals the menus as accordion sections (each
 * expands and collapses on its own), plus the dealer-locator and account entries. Escape closes it
 * and returns focus to the button; a page change closes it.
 *
 * The panel's contents are rendered once it is first opened, and a section's links while it is
 * expanded: closed, they are a quarter of the document's markup that a phone would parse, lay out
 * and hydrate before the page answers a tap, and nobody can see them (the button needs JavaScript
 * anyway; crawlers follow the same links in the desktop navigation).
 */
export function MobileMenu({ menus, accountHref, accountLabel }: MobileMenuProps) {
  const [open, setOpen] = useState(false);
  const [everOpened, setEverOpened] = useState(false);
  if (open && !everOpened) setEverOpened(true);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const panelId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);

  const { key } = useLocation();
  const [lastKey, setLastKey] = useState(key);
  if (lastKey !== key) {
    setLastKey(key);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  const toggleSection = (index: number) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(index)) next.delete(index);
      else next.add(index);
      return next;
    });
  };
  const close = () => {
    setOpen(false);
  };

  return (
    <div className="mobile-menu">
      <button
        ref={buttonRef}
        type="button"
        className="icon-button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label="Menu"
        onClick={() => {
          setOpen((value) => !value);
        }}
      >
        <MenuIcon />
      </button>
      <nav id={panelId} aria-label="Mobile" className="mobile-menu__panel" hidden={!open}>
        {everOpened && (
          <MobilePanelContents
            menus={menus}
            expanded={expanded}
            onToggleSection={toggleSection}
            onNavigate={close}
            accountHref={accountHref}
            accountLabel={accountLabel}
          />
        )}
      </nav>
    </div>
  );
}

interface MobilePanelContentsProps extends MobileMenuProps {
  expanded: ReadonlySet<number>;
  onToggleSection: (index: number) => void;
  onNavigate: () => void;
}

function MobilePanelContents({
  menus,
  expanded,
  onToggleSection,
  onNavigate,
  accountHref,
  accountLabel,
}: MobilePanelContentsProps) {
  return (
    <>
      <ul className="mobile-menu__sections">
        {menus.map((menu, index) => (
          <MobileSection
            key={menu.title}
            menu={menu}
            expanded={expanded.has(index)}
            onToggle={() => {
              onToggleSection(index);
            }}
            onNavigate={onNavigate}
          />
        ))}
      </ul>
      <ul className="mobile-menu__entries">
        <li>
          <Link to={paths.dealerLocator()} onClick={onNavigate}>
            <MapPinIcon size={20} />
            Dealer Locator
          </Link>
        </li>
        <li>
          <Link to={accountHref} onClick={onNavigate}>
            <UserIcon size={20} />
            {accountLabel}
          </Link>
        </li>
      </ul>
    </>
  );
}

interface MobileSectionProps {
  menu: Menu;
  expanded: boolean;
  onToggle: () => void;
  onNavigate: () => void;
}

function MobileSection({ menu, expanded, onToggle, onNavigate }: MobileSectionProps) {
  const sectionId = useId();
  return (
    <li className="mobile-menu__section">
      <button
        type="button"
        className="mobile-menu__section-button"
        aria-expanded={expanded}
        aria-controls={sectionId}
        onClick={onToggle}
      >
        {menu.title}
        <ChevronIcon size={16} direction={expanded ? 'up' : 'down'} />
      </button>
      <div id={sectionId} className="mobile-menu__section-panel" hidden={!expanded}>
        {expanded && <MenuContents menu={menu} onNavigate={onNavigate} />}
      </div>
    </li>
  );
}
