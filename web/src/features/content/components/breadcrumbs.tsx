import { AppLink } from '../../../components/ui/app-link';
import type { Breadcrumb } from '../types';

/** Breadcrumb trail (WAI-ARIA breadcrumb pattern): the last crumb is the current page. */
export function Breadcrumbs({ items }: { items: Breadcrumb[] }) {
  if (items.length === 0) return null;
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        {items.map((item, index) => (
          <li key={`${item.label}-${item.url}`}>
            {index === items.length - 1 ? (
              <span aria-current="page">{item.label}</span>
            ) : (
              <AppLink to={item.url}>{item.label}</AppLink>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
