import { useEffect, useRef, useState } from 'react';
import { Dialog } from '../../../components/ui/dialog';
import { safeImageSrc } from '../../../lib/safe-url';
import type { Image } from '../types';

interface ProductImagesProps {
  images: readonly Image[];
  /** The gallery (a large image and thumbnails) or the ribbon (a strip of images). */
  layout: 'gallery' | 'ribbon';
  title: string;
}

/** The index after moving `step` from `index` among `count`, wrapping around both ends. */
export function wrapIndex(index: number, step: number, count: number): number {
  if (count <= 0) return 0;
  return (((index + step) % count) + count) % count;
}

/**
 * The product's images as a gallery or a ribbon. Each image opens the lightbox (click, or Enter
 * on it), which wraps around with its Previous/Next buttons and the arrow keys, closes on Escape,
 * keeps the focus inside and gives it back.
 */
export function ProductImages({ images, layout, title }: ProductImagesProps) {
  const shown = images.filter((image) => safeImageSrc(image.src) !== null);
  const [current, setCurrent] = useState(0);
  const [lightbox, setLightbox] = useState<number | null>(null);
  if (shown.length === 0) return null;
  const active = Math.min(current, shown.length - 1);

  // the first image shown is the product page's LCP element: fetched first, never lazily
  const openButton = (image: Image, index: number, className: string, lcp: boolean) => (
    <button
      type="button"
      className={className}
      aria-label={`Open image ${String(index + 1)} of ${String(shown.length)}: ${image.alt || title}`}
      onClick={() => {
        setLightbox(index);
      }}
    >
      <img
        src={safeImageSrc(image.src) ?? ''}
        alt=""
        {...(lcp ? { fetchPriority: 'high' as const } : { loading: 'lazy' as const, decoding: 'async' as const })}
      />
    </button>
  );

  const lightboxView =
    lightbox === null ? null : (
      <Lightbox
        images={shown}
        index={lightbox}
        title={title}
        onMove={(step) => {
          setLightbox((index) => wrapIndex(index ?? 0, step, shown.length));
        }}
        onClose={() => {
          setLightbox(null);
        }}
      />
    );

  if (layout === 'ribbon') {
    return (
      <section className="product-images product-images--ribbon" aria-label="Image ribbon">
        <ul className="product-images__ribbon">
          {shown.map((image, index) => (
            <li key={`${image.src}-${String(index)}`}>
              {openButton(image, index, 'product-images__open', index === 0)}
            </li>
          ))}
        </ul>
        {lightboxView}
      </section>
    );
  }

  const main = shown[active] ?? shown[0];
  return (
    <section className="product-images product-images--gallery" aria-label="Image gallery">
      {main ? openButton(main, active, 'product-images__main product-images__open', true) : null}
      {shown.length > 1 ? (
        <ul className="product-images__thumbnails" aria-label="Thumbnails">
          {shown.map((image, index) => (
            <li key={`${image.src}-${String(index)}`}>
              <button
                type="button"
                className="product-images__thumbnail"
                aria-label={`Show image ${String(index + 1)}: ${image.alt || title}`}
                aria-pressed={index === active}
                onClick={() => {
                  setCurrent(index);
                }}
              >
                <img src={safeImageSrc(image.src) ?? ''} alt="" loading="lazy" decoding="async" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {lightboxView}
    </section>
  );
}

function Lightbox({
  images,
  index,
  title,
  onMove,
  onClose,
}: {
  images: readonly Image[];
  index: number;
  title: string;
  onMove: (step: number) => void;
  onClose: () => void;
}) {
  const image = images[index];
  const onMoveRef = useRef(onMove);
  useEffect(() => {
    onMoveRef.current = onMove;
  });
  // the arrow keys work wherever the focus is inside the (modal) dialog
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      event.preventDefault();
      onMoveRef.current(event.key === 'ArrowRight' ? 1 : -1);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
    };
  }, []);
  return (
    <Dialog title={title} onClose={onClose} className="lightbox">
      <div className="lightbox__body">
        <figure className="lightbox__figure">
          <img src={safeImageSrc(image?.src) ?? ''} alt={image?.alt ?? ''} />
          <figcaption aria-live="polite">
            Image {index + 1} of {images.length}
          </figcaption>
        </figure>
        <div className="lightbox__controls">
          <button
            type="button"
            className="button button--outline"
            onClick={() => {
              onMove(-1);
            }}
          >
            Previous image
          </button>
          <button
            type="button"
            className="button button--outline"
            onClick={() => {
              onMove(1);
            }}
          >
            Next image
          </button>
        </div>
      </div>
    </Dialog>
  );
}
