import { useState } from 'react';
import { Link } from 'react-router';
import type { Profile, StoredAddress } from '../../../api/types';
import { Dialog } from '../../../components/ui/dialog';
import { notify } from '../../../components/notifications/store';
import { useDeleteAddress } from '../queries';
import { AccountPage } from './account-page';
import { AddressLines, defaultAddresses, DefaultAddressCard } from './address-card';

const FROM = '/profile/address-book';

/** The address book: default addresses, the other entries (edit, delete after confirmation), Add New Address. */
export function AddressBookPage() {
  return <AccountPage title="Address Book">{(profile) => <AddressBook profile={profile} />}</AccountPage>;
}

function AddressBook({ profile }: { profile: Profile }) {
  const { shipping, billing } = defaultAddresses(profile.addresses);
  const additional = profile.addresses.filter((address) => !address.isDefaultShipping && !address.isDefaultBilling);
  const [pendingDelete, setPendingDelete] = useState<StoredAddress | null>(null);
  const remove = useDeleteAddress();

  const addNew = (
    <Link to="/profile/address-book/new" state={{ from: FROM }} className="button">
      Add New Address
    </Link>
  );

  if (profile.addresses.length === 0) {
    return (
      <div className="address-book">
        <div className="account-empty">
          <h2>No addresses found</h2>
          <p>Add a new address to your address book</p>
        </div>
        {addNew}
      </div>
    );
  }

  return (
    <div className="address-book">
      <section className="account-section" aria-labelledby="address-book-defaults">
        <h2 id="address-book-defaults">Default Addresses</h2>
        <div className="account-cards">
          <DefaultAddressCard kind="shipping" address={shipping} from={FROM} />
          <DefaultAddressCard kind="billing" address={billing} from={FROM} />
        </div>
      </section>
      <section className="account-section" aria-labelledby="address-book-additional">
        <h2 id="address-book-additional">Additional Address Entries</h2>
        {additional.length === 0 ? (
          <p>You have no other address entries in your address book.</p>
        ) : (
          <ul className="account-cards account-cards--list">
            {additional.map((address) => (
              <li key={address.id} className="account-card">
                <h3 className="account-card__title">{address.addressName}</h3>
                <AddressLines address={address} />
                <p className="account-card__actions">
                  <Link
                    to={`/profile/address-book/${String(address.id)}`}
                    state={{ from: FROM }}
                    aria-label={`Edit Address ${address.addressName}`}
                  >
                    Edit Address
                  </Link>
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Delete Address ${address.addressName}`}
                    onClick={() => {
                      setPendingDelete(address);
                    }}
                  >
                    Delete Address
                  </button>
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>
      {addNew}
      {pendingDelete ? (
        <Dialog
          title="Delete Address"
          onClose={() => {
            setPendingDelete(null);
          }}
        >
          <p>Are you sure you want to delete the address &lsquo;{pendingDelete.addressName}&rsquo;?</p>
          <div className="dialog__actions">
            <button
              type="button"
              className="button"
              disabled={remove.isPending}
              onClick={() => {
                remove.mutate(pendingDelete.id, {
                  onSuccess: () => {
                    setPendingDelete(null);
                    notify({ message: 'The address has been deleted.', type: 'success' });
                  },
                  // the failure itself is told by the shared handler (app/query-client.ts)
                  onError: () => {
                    setPendingDelete(null);
                  },
                });
              }}
            >
              Delete
            </button>
            <button
              type="button"
              className="button button--outline"
              onClick={() => {
                setPendingDelete(null);
              }}
            >
              Cancel
            </button>
          </div>
        </Dialog>
      ) : null}
    </div>
  );
}
