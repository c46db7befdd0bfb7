import { useParams } from 'react-router';
import {
  CollectionPage,
  collectionLoader,
  emptyCollection,
  useCollection,
  revalidateOnPathChange,
} from '../../features/catalogue/collection';
import { NotFoundPage as NotFound } from '../../features/content/pages/not-found';

export const loader = collectionLoader;
export const shouldRevalidate = revalidateOnPathChange;

/** `/collection/:title`: a collection that does not exist shows the not-found page. */
export function Component() {
  const title = useParams().title ?? '';
  const page = useCollection(title);
  switch (page.status) {
    case 'found':
      return <CollectionPage key={title} collection={page.data} />;
    case 'not-found':
      return <NotFound />;
    case 'failed':
      return <CollectionPage collection={emptyCollection(title)} />;
    case 'loading':
      return <div className="page" aria-busy="true" />;
  }
}
