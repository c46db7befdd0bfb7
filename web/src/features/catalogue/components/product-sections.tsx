import { useId, useState } from 'react';
import { AppLink } from '../../../components/ui/app-link';
import { formatUsd } from '../../../lib/money';
import { safeHref, safeImageSrc } from '../../../lib/safe-url';
import { RichText } from '../../content';
import type {
  AddOn,
  CompatibilityGroup,
  MoreDetail,
  ProductAbout,
  ProductCard,
  ProductPage,
  PromoVideos,
} from '../types';
import { ProductGrid } from './product-card';
import { Tabs } from './tabs';

/** Add-ons that toggle on and off, each with its price. */
export function AddOns({
  addOns,
  chosen,
  onToggle,
}: {
  addOns: readonly AddOn[];
  chosen: ReadonlySet<number>;
  onToggle: (id: number) => void;
}) {
  const headingId = useId();
  if (addOns.length === 0) return null;
  return (
    <section className="add-ons" aria-labelledby={headingId}>
      <h2 id={headingId} className="product-page__label">
        Add-Ons
      </h2>
      <ul className="add-ons__list">
        {addOns.map((addOn) => {
          const image = safeImageSrc(addOn.image.src);
          return (
            <li key={addOn.id}>
              <button
                type="button"
                className="add-on"
                aria-pressed={chosen.has(addOn.id)}
                onClick={() => {
                  onToggle(addOn.id);
                }}
              >
                {image ? <img src={image} alt="" className="add-on__image" loading="lazy" decoding="async" /> : null}
                <span className="add-on__label">{addOn.label}</span>
                <span className="add-on__price">+{formatUsd(addOn.addOnPrice)}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Compatibility groups: a button per compatible product; an empty group shows a disabled 'Coming Soon'. */
export function Compatibility({ groups }: { groups: readonly CompatibilityGroup[] }) {
  if (groups.length === 0) return null;
  return (
    <div className="compatibility">
      {groups.map((group) => (
        <CompatibilityGroupView key={group.id} group={group} />
      ))}
    </div>
  );
}

function CompatibilityGroupView({ group }: { group: CompatibilityGroup }) {
  const headingId = useId();
  return (
    <section className="compatibility__group" aria-labelledby={headingId}>
      <h2 id={headingId} className="product-page__label">
        {group.title}
      </h2>
      <div className="compatibility__options">
        {group.options.length > 0 ? (
          group.options.map((option) => (
            <AppLink key={option.id} to={option.url} className="button button--outline">
              {option.label}
            </AppLink>
          ))
        ) : (
          <button type="button" className="button button--outline" disabled>
            Coming Soon
          </button>
        )}
      </div>
    </section>
  );
}

const DESCRIPTION = 'DESCRIPTION';
const TECH_SPECS = 'TECH SPECS';

/** The DESCRIPTION and TECH SPECS tabs. */
export function ProductTabs({ product }: { product: ProductPage }) {
  const [tab, setTab] = useState(DESCRIPTION);
  return (
    <Tabs
      label="Product information"
      tabs={[DESCRIPTION, TECH_SPECS]}
      selected={tab}
      onSelect={setTab}
      className="product-tabs"
    >
      {tab === DESCRIPTION ? (
        <RichText content={product.description} />
      ) : product.techSpecs.length > 0 ? (
        <SpecList specs={product.techSpecs} />
      ) : (
        <p>No technical specifications yet.</p>
      )}
    </Tabs>
  );
}

function SpecList({ specs }: { specs: readonly { label: string; value: string }[] }) {
  return (
    <dl className="spec-list">
      {specs.map((spec) => (
        <div key={spec.label} className="spec-list__row">
          <dt>{spec.label}</dt>
          <dd>{spec.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function PromoVideoSection({ videos }: { videos: PromoVideos | null }) {
  const headingId = useId();
  if (!videos || videos.cards.length === 0) return null;
  return (
    <section className="promo-videos" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {videos.title} <span className="promo-videos__accent">{videos.accentTitle}</span>
      </h2>
      <ul className="promo-videos__list">
        {videos.cards.map((card) => {
          const href = safeHref(card.videoUrl);
          const image = safeImageSrc(card.image.src);
          return (
            <li key={card.id}>
              {href ? (
                <a href={href} target="_blank" rel="noreferrer" className="promo-videos__card">
                  {image ? <img src={image} alt="" loading="lazy" decoding="async" /> : null}
                  <span>
                    {card.title}
                    <span className="visually-hidden"> (video, opens in a new tab)</span>
                  </span>
                </a>
              ) : (
                <span className="promo-videos__card">{card.title}</span>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** The More Details accordion. */
export function MoreDetails({ items }: { items: readonly MoreDetail[] }) {
  const headingId = useId();
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  if (items.length === 0) return null;
  return (
    <section className="more-details" aria-labelledby={headingId}>
      <h2 id={headingId}>More Details</h2>
      <div className="accordion">
        {items.map((item) => (
          <MoreDetailEntry
            key={item.id}
            item={item}
            expanded={open.has(item.id)}
            onToggle={() => {
              setOpen((current) => {
                const next = new Set(current);
                if (next.has(item.id)) next.delete(item.id);
                else next.add(item.id);
                return next;
              });
            }}
          />
        ))}
      </div>
    </section>
  );
}

function MoreDetailEntry({ item, expanded, onToggle }: { item: MoreDetail; expanded: boolean; onToggle: () => void }) {
  const panelId = useId();
  return (
    <div className="accordion__item">
      <h3 className="accordion__heading">
        <button
          type="button"
          className="accordion__button"
          aria-expanded={expanded}
          aria-controls={panelId}
          onClick={onToggle}
        >
          {item.question}
        </button>
      </h3>
      <div id={panelId} className="accordion__panel" hidden={!expanded}>
        <RichText content={item.answer} />
      </div>
    </div>
  );
}

/** The long display's about section: summary, specs, lists, the manual, patents and the disclaimer. */
export function AboutSection({ about }: { about: ProductAbout }) {
  const headingId = useId();
  const image = safeImageSrc(about.imgUrl.src);
  const manual = safeHref(about.readMore.url);
  return (
    <section className="about-product" aria-labelledby={headingId}>
      <h2 id={headingId}>{about.title}</h2>
      {about.subtitle ? <p className="about-product__subtitle">{about.subtitle}</p> : null}
      {image ? (
        <img src={image} alt={about.imgUrl.alt} className="about-product__image" loading="lazy" decoding="async" />
      ) : null}
      {about.summary ? <p>{about.summary}</p> : null}
      {about.techSpecs.length > 0 ? <SpecList specs={about.techSpecs} /> : null}
      {about.details.map((detail) => (
        <div key={detail.title} className="about-product__details">
          <h3>{detail.title}</h3>
          <ul>
            {detail.listItems.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        </div>
      ))}
      {manual ? (
        <p>
          <a href={manual} className="button button--outline" target="_blank" rel="noreferrer">
            {about.readMore.label || 'Read More'}
            <span className="visually-hidden"> (PDF, opens in a new tab)</span>
          </a>
        </p>
      ) : null}
      {about.patents.length > 0 ? (
        <div className="about-product__patents">
          <h3>Patents</h3>
          <ul>
            {about.patents.map((patent) => (
              <li key={patent}>{patent}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {about.disclaimer ? <p className="about-product__disclaimer">{about.disclaimer}</p> : null}
    </section>
  );
}

export function RelatedProducts({ products }: { products: readonly ProductCard[] }) {
  const headingId = useId();
  if (products.length === 0) return null;
  return (
    <section className="related-products" aria-labelledby={headingId}>
      <h2 id={headingId}>Related Products</h2>
      <ProductGrid products={products} label="Related products" headingLevel={3} />
    </section>
  );
}
