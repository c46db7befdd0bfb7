import { AppLink } from '../../../components/ui/app-link';
import type { RibbonItem } from '../../content';
import { ContentImage } from '../../content';

/** Slide width of the image ribbon, in px (spec constants; `.ribbon__item` in styles.css has it too). */
export const RIBBON_SLIDE_WIDTH = 250;

/** A horizontally scrolling row of image links. */
export function ImageRibbon({ items }: { items: RibbonItem[] }) {
  if (items.length === 0) return null;
  return (
    <section className="ribbon" aria-label="Shop by category">
      <ul className="ribbon__list">
        {items.map((item) => (
          <li key={`${item.title}-${item.url}`} className="ribbon__item">
            <AppLink to={item.url} className="ribbon__link">
              <ContentImage
                image={item.image}
                decorative={Boolean(item.title)}
                width={RIBBON_SLIDE_WIDTH}
                loading="lazy"
                decoding="async"
              />
              <span className="ribbon__title">{item.title}</span>
            </AppLink>
          </li>
        ))}
      </ul>
    </section>
  );
}
