import { dealersLoader, DealerLocator } from '../../features/dealers';

/** The dealers of the URL's search (with the page's texts: one request). */
export const loader = dealersLoader;

export function Component() {
  return <DealerLocator />;
}
