import { PageMeta } from '../../content';
import { useContentPage } from '../../content';
import { pageLoader } from '../../content';
import { HeroCarousel } from '../components/hero-carousel';
import { ImageRibbon } from '../components/image-ribbon';

export const homeLoader = pageLoader('home');

export function HomePage() {
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
