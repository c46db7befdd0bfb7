import type { QueryClient } from '@tanstack/react-query';
import { useParams, type LoaderFunctionArgs } from 'react-router';
import { ConfirmationPage, orderQuery } from '../../features/checkout';

export function loader(queryClient: QueryClient) {
  return async ({ params }: LoaderFunctionArgs) => {
    // a missing order is the page's own not-found state, so the loader never throws
    await queryClient.query(orderQuery(params.orderId ?? '')).catch(() => undefined);
    return null;
  };
}

export function Component() {
  const { orderId = '' } = useParams();
  return <ConfirmationPage key={orderId} orderId={orderId} />;
}
