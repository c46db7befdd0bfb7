import { renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { cartQuery } from '../cart';
import { anonymousSession, sessionKeys } from '../session';
import { cartItem, emptyCart, signedInSession } from '../../test/fixtures';
import { createTestQueryClient } from '../../test/render';
import { problem, server } from '../../test/server';
import { useSignIn, useSignOut } from './hooks';

function setup() {
  const queryClient = createTestQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return { queryClient, wrapper };
}

const userCart = { ...emptyCart, isGuest: false, items: [cartItem({ id: 1, productId: 'TF-MAT', quantity: 2 })] };

describe('session mutations', () => {
  it('sign-in stores the session and reads the (merged) cart again', async () => {
    const { queryClient, wrapper } = setup();
    let cartReads = 0;
    server.use(
      http.post('/api/auth/login', () => HttpResponse.json(signedInSession)),
      http.get('/api/cart', () => {
        cartReads += 1;
        return HttpResponse.json(cartReads === 1 ? emptyCart : userCart);
      }),
    );

    // the header's badge is what observes the cart in the app
    const { result } = renderHook(() => ({ cart: useQuery(cartQuery).data, signIn: useSignIn() }), { wrapper });
    await waitFor(() => {
      expect(result.current.cart).toEqual(emptyCart);
    });
    await result.current.signIn.mutateAsync({ email: 'a@b.c', password: 'secret-pass', captcha: 'token' });

    expect(queryClient.getQueryData(sessionKeys.current())).toEqual(signedInSession);
    await waitFor(() => {
      expect(result.current.cart).toEqual(userCart);
    });
    expect(cartReads).toBe(2);
  });

  it("sign-out forgets the user's data but keeps public content, even when the upstream logout fails", async () => {
    const { queryClient, wrapper } = setup();
    let logoutCsrf: string | null = null;
    server.use(
      http.post('/api/auth/logout', ({ request }) => {
        logoutCsrf = request.headers.get('X-CSRF');
        return problem(502, { title: 'Bad Gateway', detail: 'upstream down', code: 'upstream_unavailable' });
      }),
    );
    queryClient.setQueryData(sessionKeys.current(), signedInSession);
    queryClient.setQueryData(['account', 'profile'], { email: 'demo@example.com' });
    queryClient.setQueryData(['content', 'page', 'faq'], { title: 'FAQ' });

    const { result } = renderHook(() => useSignOut(), { wrapper });
    result.current.mutate();

    await waitFor(() => {
      expect(result.current.isError).toBe(true);
    });
    expect(logoutCsrf).toBe('1');
    expect(queryClient.getQueryData(sessionKeys.current())).toEqual(anonymousSession);
    expect(queryClient.getQueryData(['account', 'profile'])).toBeUndefined();
    expect(queryClient.getQueryData(['content', 'page', 'faq'])).toEqual({ title: 'FAQ' });
  });
});
