import { PageMeta } from '../../features/content/components/page-meta';
import { useContentPage } from '../../features/content/hooks';
import { pageLoader } from '../../features/content/queries';
import { HeroCarousel, ImageRibbon } from '../../features/home';

export const loader = pageLoader('home');

export function Component() {
  const page = useContentPage('home');
  return (
    <div className="page page--home">
      <PageMeta metaData={page.metaData} />
      <h1 className="visually-hidden">Home</h1>
      <HeroCarousel slides={page.carousel} />
      <ImageRibbon items={page.ribbon} />
    </div>
  );
}
