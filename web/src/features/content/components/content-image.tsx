import type { ImgHTMLAttributes } from 'react';
import { safeImageSrc } from '../../../lib/safe-url';
import type { Image } from '../types';

interface ContentImageProps extends Omit<ImgHTMLAttributes<HTMLImageElement>, 'src' | 'alt'> {
  image: Image | null | undefined;
  /** Decorative: the alt text is dropped (the same words are next to it). */
  decorative?: boolean;
}

/** A content-managed image; nothing when it has no (safe) source. */
export function ContentImage({ image, decorative = false, ...rest }: ContentImageProps) {
  const src = safeImageSrc(image?.src);
  if (!src) return null;
  return <img src={src} alt={decorative ? '' : (image?.alt ?? '')} {...rest} />;
}
