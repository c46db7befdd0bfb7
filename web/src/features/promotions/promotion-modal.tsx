import { Link } from 'react-router';
import { Dialog } from '../../components/ui/dialog';
import { paths } from '../../lib/paths';
import { closePromotion, type Promotion } from './store';
import { safeImageSrc } from '../../lib/safe-url';

/** The promotion modal: image, title, subtitle and 'Shop Now' to the promotion's collection. */
export default function PromotionModal({ promotion }: { promotion: Promotion }) {
  const imageSrc = safeImageSrc(promotion.image?.src);
  return (
    <Dialog title={promotion.title} onClose={closePromotion} className="promotion-modal">
      {imageSrc ? <img className="promotion-modal__image" src={imageSrc} alt={promotion.image?.alt ?? ''} /> : null}
      {promotion.subtitle ? <p>{promotion.subtitle}</p> : null}
      <Link className="button" to={paths.collection(promotion.title)} onClick={closePromotion}>
        Shop Now
      </Link>
    </Dialog>
  );
}
