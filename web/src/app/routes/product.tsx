import { useParams } from 'react-router';
import {
  emptyProduct,
  ProductPage,
  productLoader,
  useProduct,
  revalidateOnPathChange,
} from '../../features/catalogue/product';
import { ReviewsWidget } from '../../features/reviews/reviews-widget';
import { NotFoundPage as NotFound } from '../../features/content/pages/not-found';

export const loader = productLoader;
export const shouldRevalidate = revalidateOnPathChange;

/**
 * `/product/:title`: a product that does not exist shows the not-found page; a failed load the
 * empty product. The page is keyed by its title, so a new title starts a fresh selection.
 */
export function Component() {
  const title = useParams().title ?? '';
  const page = useProduct(title);
  switch (page.status) {
    case 'found': {
      const product = page.data;
      return (
        <ProductPage
          key={product.title}
          product={product}
          reviews={(kind) => <ReviewsWidget kind={kind} productId={product.productId || product.title} />}
        />
      );
    }
    case 'not-found':
      return <NotFound />;
    case 'failed':
      return <ProductPage product={emptyProduct(title)} />;
    case 'loading':
      return <div className="page" aria-busy="true" />;
  }
}
