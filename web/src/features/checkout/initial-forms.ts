import type { Profile } from '../../api/types';
import { emptyBillingForm, emptyDealerForm, type BillingForm, type DealerForm } from './schemas';
import { loadBillingForm, loadDealerForm } from './storage';
import { fromStoredAddress } from './wire';

/**
 * The billing step's first values: the forms saved in this session, else the signed-in
 * shopper's default addresses (billing, and shipping when it is another address), else empty
 * ones. A signed-in shopper's e-mail (`lockedEmail`) always wins.
 */
export function initialForms(
  account: Profile | null,
  lockedEmail: string | null,
): { billing: BillingForm; dealer: DealerForm } {
  const dealer = loadDealerForm() ?? emptyDealerForm;
  const saved = loadBillingForm();
  if (saved) return { billing: lockedEmail === null ? saved : { ...saved, email: lockedEmail }, dealer };
  if (!account) return { billing: { ...emptyBillingForm, email: lockedEmail ?? '' }, dealer };

  const billingAddress = account.addresses.find((address) => address.isDefaultBilling);
  const shippingAddress = account.addresses.find((address) => address.isDefaultShipping);
  const main = billingAddress ?? shippingAddress;
  const billing: BillingForm = {
    ...emptyBillingForm,
    email: lockedEmail ?? account.email,
    billing: main
      ? fromStoredAddress(main)
      : {
          ...emptyBillingForm.billing,
          firstName: account.firstName,
          lastName: account.lastName,
          phone: account.phoneNumber ?? '',
        },
  };
  if (shippingAddress && main && shippingAddress.id !== main.id) {
    return {
      billing: { ...billing, shippingSameAsBilling: false, shipping: fromStoredAddress(shippingAddress) },
      dealer,
    };
  }
  return { billing, dealer };
}
