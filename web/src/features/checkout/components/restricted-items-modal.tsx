import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { CartItem } from '../../../api/types';
import { notify, notifyError } from '../../../components/notifications/store';
import { Dialog } from '../../../components/ui/dialog';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import { removeCartLine } from '../cart-bridge';
import { ALL_ITEMS_REMOVED, RESTRICTED_HINT, RESTRICTED_LIST, RESTRICTED_REMOVED, RESTRICTED_TITLE } from '../messages';

interface RestrictedItemsModalProps {
  items: readonly CartItem[];
  /** 'Update Address' (or Escape): back to the form. */
  onClose: () => void;
  /** The restricted items are gone and others remain. */
  onRemoved: () => void;
  /** The cart is empty: the page goes home. */
  onLeave: () => void;
}

/** The restricted-items modal (spec sections 4 and 8): remove the items or edit the address. */
export function RestrictedItemsModal({ items, onClose, onRemoved, onLeave }: RestrictedItemsModalProps) {
  const supportEmail = useRuntimeConfig()?.supportEmail;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [removing, setRemoving] = useState(false);

  const removeAll = async () => {
    setRemoving(true);
    try {
      let remaining = Number.POSITIVE_INFINITY;
      // one by one, as the spec says: each answer is the whole cart
      for (const item of items) {
        const cart = await removeCartLine(queryClient, item.id);
        remaining = cart.items.length;
      }
      if (remaining === 0) {
        onLeave();
        await navigate('/', {
          replace: true,
          state: { notification: { message: ALL_ITEMS_REMOVED, type: 'warning' } },
        });
        return;
      }
      onRemoved();
      notify({ message: RESTRICTED_REMOVED, type: 'success' });
    } catch (error) {
      setRemoving(false);
      notifyError(error);
    }
  };

  return (
    <Dialog title={RESTRICTED_TITLE} onClose={onClose} className="restricted-modal">
      <p>{RESTRICTED_HINT}</p>
      <p>{RESTRICTED_LIST}</p>
      <ul className="restricted-modal__items">
        {items.map((item) => (
          <li key={item.id}>
            {item.productName}
            {item.options.length > 0 ? ` (${item.options.map((option) => option.value).join(' / ')})` : ''}
          </li>
        ))}
      </ul>
      {supportEmail ? (
        <p>
          Questions? Contact us at <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
        </p>
      ) : null}
      <div className="restricted-modal__actions">
        <button type="button" className="button button--outline" onClick={onClose} disabled={removing}>
          Update Address
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void removeAll()}
          disabled={removing}
          aria-busy={removing || undefined}
        >
          {removing ? 'Removing…' : 'Remove Items'}
        </button>
      </div>
    </Dialog>
  );
}
