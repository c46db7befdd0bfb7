import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { apiSend } from '../../lib/api';
import { notifyError } from '../notifications/store';
import { forgetSignedInUser } from '../session/expiry';

/**
 * Logout from the account menu: home first (so the account area does not send the now signed-out
 * visitor to sign-in), then the session ends. A failed logout says why.
 */
export function useSignOutAndLeave() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [leaving, setLeaving] = useState(false);
  const signOut = useMutation({
    mutationFn: () => apiSend<undefined>('POST', '/api/auth/logout'),
    onSuccess: () => forgetSignedInUser(queryClient),
    onError: notifyError,
  });
  const run = () => {
    setLeaving(true);
    void Promise.resolve(navigate('/')).then(() => {
      signOut.mutate();
    });
  };
  return { run, leaving };
}
