import { useId, useState } from 'react';
import { Breadcrumbs } from '../components/breadcrumbs';
import { ContentImage } from '../components/content-image';
import { PageMeta } from '../components/page-meta';
import { RichText } from '../components/rich-text';
import { useContentPage } from '../hooks';
import { pageLoader } from '../queries';
import type { FaqItem } from '../types';

export const faqLoader = pageLoader('faq');

/** FAQ: an accordion in which several answers may be open at once; 'Close All' collapses them. */
export function FaqPage() {
  const page = useContentPage('faq');
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());

  const toggle = (id: number) => {
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  };

  return (
    <div className="page page--faq">
      <PageMeta metaData={page.metaData} />
      <Breadcrumbs items={page.breadcrumbs} />
      <ContentImage image={page.headerImage} className="page__header-image" />
      <h1>{page.title || 'Frequently Asked Questions'}</h1>
      <RichText content={page.intro} />
      {page.items.length > 0 ? (
        <>
          <div className="faq__toolbar">
            <button
              type="button"
              className="button button--outline"
              disabled={open.size === 0}
              onClick={() => {
                setOpen(new Set());
              }}
            >
              Close All
            </button>
          </div>
          <div className="accordion">
            {page.items.map((item) => (
              <FaqEntry
                key={item.id}
                item={item}
                expanded={open.has(item.id)}
                onToggle={() => {
                  toggle(item.id);
                }}
              />
            ))}
          </div>
        </>
      ) : null}
    </div>
  );
}

function FaqEntry({ item, expanded, onToggle }: { item: FaqItem; expanded: boolean; onToggle: () => void }) {
  const panelId = useId();
  return (
    <div className="accordion__item">
      <h2 className="accordion__heading">
        <button
          type="button"
          className="accordion__button"
          aria-expanded={expanded}
          aria-controls={panelId}
          onClick={onToggle}
        >
          {item.question}
        </button>
      </h2>
      <div id={panelId} className="accordion__panel" hidden={!expanded}>
        <RichText content={item.answer} />
      </div>
    </div>
  );
}
