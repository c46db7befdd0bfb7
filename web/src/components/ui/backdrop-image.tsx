/**
 * A decorative image that fills its positioned parent (class `has-backdrop`), in place of a CSS
 * `background-image` in a `style` attribute: a strict CSP without `'unsafe-inline'` for styles
 * drops style attributes, including server-rendered ones, but never an `<img>`. An `<img>` is also
 * found by the browser's preload scanner, so a banner that is the LCP element starts loading early.
 */
export function BackdropImage({ src, priority = false }: { src: string | null; priority?: boolean }) {
  if (!src) return null;
  return (
    <img
      className="backdrop-image"
      src={src}
      alt=""
      decoding="async"
      {...(priority ? { fetchPriority: 'high' as const } : { loading: 'lazy' as const })}
    />
  );
}
