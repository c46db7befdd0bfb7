import { Link } from 'react-router';
import type { StoredAddress } from '../../../api/types';
import { telHref } from '../format';

/** An address as the cards show it: name, lines, city/state/zip, country, T: phone and F: fax links. */
export function AddressLines({ address }: { address: StoredAddress }) {
  const name = [address.firstName, address.lastName].filter(Boolean).join(' ');
  return (
    <address className="address-lines">
      {name}
      {address.company ? (
        <>
          <br />
          {address.company}
        </>
      ) : null}
      <br />
      {address.addressLine1}
      {address.addressLine2 ? (
        <>
          <br />
          {address.addressLine2}
        </>
      ) : null}
      <br />
      {address.city}, {address.state} {address.postalCode}
      <br />
      {address.country}
      {address.mainContact ? (
        <>
          <br />
          T: <a href={telHref(address.mainContact)}>{address.mainContact}</a>
        </>
      ) : null}
      {address.faxContact ? (
        <>
          <br />
          F: <a href={telHref(address.faxContact)}>{address.faxContact}</a>
        </>
      ) : null}
    </address>
  );
}

interface DefaultAddressCardProps {
  kind: 'shipping' | 'billing';
  address: StoredAddress | undefined;
  /** Where the address form returns to. */
  from: string;
}

/** 'Default shipping Address' / 'Default billing Address' with its 'Change … Address' link. */
export function DefaultAddressCard({ kind, address, from }: DefaultAddressCardProps) {
  const title = `Default ${kind} Address`;
  return (
    <section className="account-card" aria-label={title}>
      <h3 className="account-card__title">{title}</h3>
      {address ? (
        <>
          <AddressLines address={address} />
          <Link to={`/profile/address-book/${String(address.id)}`} state={{ from }} className="account-card__action">
            Change {kind} Address
          </Link>
        </>
      ) : (
        <p>You have not set a default {kind} address.</p>
      )}
    </section>
  );
}

export function defaultAddresses(addresses: readonly StoredAddress[]) {
  return {
    shipping: addresses.find((address) => address.isDefaultShipping),
    billing: addresses.find((address) => address.isDefaultBilling),
  };
}
