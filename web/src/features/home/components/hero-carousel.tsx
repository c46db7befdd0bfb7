import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { AppLink } from '../../../components/ui/app-link';
import { ChevronIcon } from '../../../components/ui/icons';
import { prefersReducedMotion } from '../../../lib/media';
import type { CarouselSlide } from '../../content';
import { ContentImage } from '../../content';

/** Carousel auto-advance interval (spec constants). */
export const CAROUSEL_INTERVAL_MS = 5000;

interface HeroCarouselProps {
  slides: CarouselSlide[];
  intervalMs?: number;
}

/** The motion preference is read once per render; a change applies on the next visit. */
function unchanging(): () => void {
  return () => undefined;
}

function rotatesOnTheServer(): boolean {
  return false;
}

/**
 * The home carousel (WAI-ARIA carousel pattern): auto-advances and loops, with previous/next
 * buttons, indicator dots and a pause button. Rotation pauses while the pointer or focus is inside,
 * and does not start when the user prefers reduced motion.
 */
export function HeroCarousel({ slides, intervalMs = CAROUSEL_INTERVAL_MS }: HeroCarouselProps) {
  const [current, setCurrent] = useState(0);
  // The server cannot know the shopper's motion preference: hydration starts from its answer
  // (rotating) and React renders again with the browser's at once, without a mismatch.
  const reducedMotion = useSyncExternalStore(unchanging, prefersReducedMotion, rotatesOnTheServer);
  // the shopper's own stop or start, once they press the button
  const [choice, setChoice] = useState<boolean | null>(null);
  const stopped = choice ?? reducedMotion;
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  // Whether the shown slide has changed since the page loaded: only a slide coming in fades in
  // (styles.css, `.carousel--moved`). The first screen's slide paints at once: it is the home
  // page's LCP element, and a fade from transparent on load moved its paint, and so the LCP, from
  // the first frame to a later one, behind the app's start.
  const [moved, setMoved] = useState(false);
  const slidesId = useId();
  const rootRef = useRef<HTMLElement>(null);
  const count = slides.length;
  const index = count > 0 ? current % count : 0;
  const rotating = count > 1 && !stopped && !hovered && !focused;

  // pause while the pointer or keyboard focus is inside
  useEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    const enter = () => {
      setHovered(true);
    };
    const leave = () => {
      setHovered(false);
    };
    const focusIn = () => {
      setFocused(true);
    };
    const focusOut = (event: FocusEvent) => {
      if (!(event.relatedTarget instanceof Node && root.contains(event.relatedTarget))) setFocused(false);
    };
    root.addEventListener('mouseenter', enter);
    root.addEventListener('mouseleave', leave);
    root.addEventListener('focusin', focusIn);
    root.addEventListener('focusout', focusOut);
    return () => {
      root.removeEventListener('mouseenter', enter);
      root.removeEventListener('mouseleave', leave);
      root.removeEventListener('focusin', focusIn);
      root.removeEventListener('focusout', focusOut);
    };
  }, [count]);

  useEffect(() => {
    if (!rotating) return;
    const timer = window.setInterval(() => {
      setMoved(true);
      setCurrent((value) => (value + 1) % count);
    }, intervalMs);
    return () => {
      window.clearInterval(timer);
    };
  }, [rotating, count, intervalMs]);

  if (count === 0) return null;

  const go = (next: number) => {
    setMoved(true);
    setCurrent((next + count) % count);
  };

  return (
    <section
      className={moved ? 'carousel carousel--moved' : 'carousel'}
      aria-roledescription="carousel"
      aria-label="Featured"
      ref={rootRef}
    >
      <div id={slidesId} className="carousel__slides" aria-live={rotating ? 'off' : 'polite'}>
        {slides.map((slide, slideIndex) => (
          <div
            key={`${slide.title}-${slide.url}`}
            className="carousel__slide"
            role="group"
            aria-roledescription="slide"
            aria-label={`${String(slideIndex + 1)} of ${String(count)}`}
            hidden={slideIndex !== index}
          >
            <ContentImage
              className="carousel__image"
              image={slide.image}
              decoding={slideIndex === 0 ? undefined : 'async'}
              // the first slide is the home page's LCP element; the others wait their turn
              fetchPriority={slideIndex === 0 ? 'high' : 'low'}
            />
            <div className="carousel__caption">
              <h2 className="carousel__title">{slide.title}</h2>
              {slide.subtitle ? <p className="carousel__subtitle">{slide.subtitle}</p> : null}
              {slide.url ? (
                <AppLink to={slide.url} className="button">
                  {slide.buttonLabel || 'Learn more'}
                  <span className="visually-hidden">: {slide.title}</span>
                </AppLink>
              ) : null}
            </div>
          </div>
        ))}
      </div>

      {count > 1 ? (
        <div className="carousel__controls">
          <button
            type="button"
            className="carousel__rotation"
            onClick={() => {
              setChoice(!stopped);
            }}
          >
            {stopped ? 'Start slide rotation' : 'Stop slide rotation'}
          </button>
          <button
            type="button"
            className="carousel__arrow"
            aria-controls={slidesId}
            aria-label="Previous slide"
            onClick={() => {
              go(index - 1);
            }}
          >
            <ChevronIcon direction="left" />
          </button>
          <div className="carousel__dots">
            {slides.map((slide, slideIndex) => (
              <button
                key={`${slide.title}-${slide.url}`}
                type="button"
                className="carousel__dot"
                aria-controls={slidesId}
                aria-label={`Slide ${String(slideIndex + 1)}: ${slide.title}`}
                aria-current={slideIndex === index ? 'true' : undefined}
                onClick={() => {
                  go(slideIndex);
                }}
              />
            ))}
          </div>
          <button
            type="button"
            className="carousel__arrow"
            aria-controls={slidesId}
            aria-label="Next slide"
            onClick={() => {
              go(index + 1);
            }}
          >
            <ChevronIcon direction="right" />
          </button>
        </div>
      ) : null}
    </section>
  );
}
