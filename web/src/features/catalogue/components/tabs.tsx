import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

interface TabsProps {
  /** The tab list's accessible name. */
  label: string;
  tabs: readonly string[];
  selected: string;
  onSelect: (tab: string) => void;
  /** The selected tab's panel. */
  children: ReactNode;
  className?: string;
}

/**
 * Tabs (WAI-ARIA tabs pattern, automatic activation): Left/Right arrows, Home and End move to and
 * select a tab; only the selected tab is in the tab order; the panel is named by its tab.
 */
export function Tabs({ label, tabs, selected, onSelect, children, className }: TabsProps) {
  const baseId = useId();
  const refs = useRef(new Map<string, HTMLButtonElement>());
  const tabId = (tab: string) => `${baseId}-tab-${String(tabs.indexOf(tab))}`;
  const panelId = `${baseId}-panel`;

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = tabs.indexOf(selected);
    const last = tabs.length - 1;
    const target =
      event.key === 'ArrowRight'
        ? index >= last
          ? 0
          : index + 1
        : event.key === 'ArrowLeft'
          ? index <= 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (target === null) return;
    event.preventDefault();
    const tab = tabs[target];
    if (tab === undefined) return;
    onSelect(tab);
    refs.current.get(tab)?.focus();
  };

  return (
    <div className={['tabs', className].filter(Boolean).join(' ')}>
      <div role="tablist" aria-label={label} className="tabs__list">
        {tabs.map((tab) => {
          const isSelected = tab === selected;
          return (
            <button
              key={tab}
              ref={(element) => {
                if (element) refs.current.set(tab, element);
                else refs.current.delete(tab);
              }}
              type="button"
              role="tab"
              id={tabId(tab)}
              aria-selected={isSelected}
              aria-controls={isSelected ? panelId : undefined}
              tabIndex={isSelected ? 0 : -1}
              className="tabs__tab"
              onClick={() => {
                onSelect(tab);
              }}
              onKeyDown={onKeyDown}
            >
              {tab}
            </button>
          );
        })}
      </div>
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(selected)} className="tabs__panel">
        {children}
      </div>
    </div>
  );
}
