import type { QueryClient } from '@tanstack/react-query';
import { PageMeta } from '../../features/content/components/page-meta';
import { useContentPage } from '../../features/content/hooks';
import { pageQuery } from '../../features/content/queries';
import { HeroCarousel } from '../../features/home/components/hero-carousel';
import { ImageRibbon } from '../../features/home/components/image-ribbon';

export const loader = (queryClient: QueryClient) => async () => {
  await queryClient.query({ ...pageQuery('home'), staleTime: 'static' });
  return null;
};

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
