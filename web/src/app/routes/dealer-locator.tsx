import type { QueryClient } from '@tanstack/react-query';
import type { LoaderFunctionArgs } from 'react-router';
import { DealerLocator, dealersLoader } from '../../features/dealers';
import { pageQuery } from '../../features/content';

export function loader(queryClient: QueryClient) {
  const dealers = dealersLoader(queryClient);
  return async (args: LoaderFunctionArgs) => {
    await Promise.all([dealers(args), queryClient.query({ ...pageQuery('dealerlocator'), staleTime: 'static' })]);
    return null;
  };
}

export function Component() {
  return <DealerLocator />;
}
