import { useNavigate } from 'react-router';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useForm, useWatch, type UseFormReturn } from 'react-hook-form';
import type { Cart, CartItem } from '../../../api/types';
import { CheckboxField } from '../../../components/ui/field';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import { useSession } from '../../session';
import { accountQuery, computeCart, shippingMethodsQuery } from '../api';
import { storeCart } from '../cart-bridge';
import { BILLING_FORM_ERRORS, DEALER_FORM_ERRORS, RESTRICTED_ITEMS_IN_CART } from '../messages';
import { formatShipping } from '../money';
import { allFflItems, hasFflItems, restrictedItems } from '../restrictions';
import { billingSchema, dealerSchema, type BillingForm, type DealerForm } from '../schemas';
import { initialForms } from '../initial-forms';
import { saveBillingForm, saveDealerForm, saveForms } from '../storage';
import { toCheckoutForm } from '../wire';
import { RestrictedItemsModal } from './restricted-items-modal';
import { AddressFieldset } from '../../../components/address/address-fieldset';
import { billingAddressLayout, dealerAddressLayout, shippingAddressLayout } from '../address-layouts';

interface BillingStepProps {
  cart: Cart;
  /** Called before the page leaves checkout on its own (so the empty-cart redirect stays quiet). */
  onLeave: () => void;
}

/** The billing step: waits for the signed-in shopper's profile, then shows the forms prefilled. */
export function BillingStep({ cart, onLeave }: BillingStepProps) {
  const session = useSession();
  const account = useQuery({ ...accountQuery, enabled: session.signedIn });
  if (session.signedIn && account.isPending) {
    return <p role="status">Loading your details…</p>;
  }
  const lockedEmail = session.signedIn ? (account.data?.email ?? session.user?.email ?? '') : null;
  const initial = initialForms(account.data ?? null, lockedEmail);
  return <BillingForms cart={cart} onLeave={onLeave} initial={initial} lockedEmail={lockedEmail} />;
}

interface BillingFormsProps extends BillingStepProps {
  initial: { billing: BillingForm; dealer: DealerForm };
  lockedEmail: string | null;
}

function BillingForms({ cart, onLeave, initial, lockedEmail }: BillingFormsProps) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const needsDealer = hasFflItems(cart.items);
  const billing = useForm<BillingForm>({ resolver: zodResolver(billingSchema), defaultValues: initial.billing });
  const dealer = useForm<DealerForm>({ resolver: zodResolver(dealerSchema), defaultValues: initial.dealer });
  const [formErrors, setFormErrors] = useState<string[]>([]);
  const [restricted, setRestricted] = useState<CartItem[]>([]);
  const errorsId = useId();

  // kept as they are typed, so a reload does not lose them (the payment step still needs them valid)
  useEffect(
    () =>
      billing.subscribe({
        formState: { values: true },
        callback: ({ values }) => {
          saveBillingForm(values);
        },
      }),
    [billing],
  );
  useEffect(
    () =>
      needsDealer
        ? dealer.subscribe({
            formState: { values: true },
            callback: ({ values }) => {
              saveDealerForm(values);
            },
          })
        : undefined,
    [dealer, needsDealer],
  );

  const methods = useQuery(shippingMethodsQuery);
  const firstMethod = methods.data?.[0];
  useEffect(() => {
    // the first shipping method is the default
    if (firstMethod && billing.getValues('shippingMethodId') === '') {
      billing.setValue('shippingMethodId', String(firstMethod.id));
    }
  }, [firstMethod, billing]);

  const compute = useMutation({
    mutationFn: computeCart,
    onSuccess: async (computed) => {
      storeCart(queryClient, computed);
      if (computed.items.length > 0) await navigate('/checkout?stepId=payment');
    },
    // a failure is told by the shared handler (app/query-client.ts)
  });

  const next = async () => {
    const billingOk = await billing.trigger(undefined, { shouldFocus: true });
    const dealerOk = needsDealer ? await dealer.trigger(undefined, { shouldFocus: billingOk }) : true;
    const errors: string[] = [];
    if (!billingOk) errors.push(BILLING_FORM_ERRORS);
    if (!dealerOk) errors.push(DEALER_FORM_ERRORS);
    let blocked: CartItem[] = [];
    if (billingOk && dealerOk) {
      blocked = restrictedItems(cart.items, billing.getValues(), needsDealer ? dealer.getValues() : null);
      if (blocked.length > 0) errors.push(RESTRICTED_ITEMS_IN_CART);
    }
    setFormErrors(errors);
    setRestricted(blocked);
    if (errors.length > 0) return;

    const billingValues = billingSchema.parse(billing.getValues());
    const dealerValues = needsDealer ? dealerSchema.parse(dealer.getValues()) : null;
    saveForms(billingValues, dealerValues);
    compute.mutate(toCheckoutForm(billingValues, dealerValues, allFflItems(cart.items)));
  };

  return (
    <form
      className="checkout-form"
      aria-label="Billing & shipping"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void next();
      }}
    >
      <BillingFields form={billing} lockedEmail={lockedEmail} />
      <ShippingFields form={billing} />
      <ShippingMethods form={billing} />
      {needsDealer ? <DealerFields form={dealer} /> : null}
      <div className="checkout-form__actions">
        <div id={errorsId} role="alert" className="checkout-form__errors">
          {formErrors.length > 0 ? (
            <ul>
              {formErrors.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          ) : null}
        </div>
        <button
          type="submit"
          className="button"
          disabled={compute.isPending}
          aria-describedby={formErrors.length > 0 ? errorsId : undefined}
        >
          {compute.isPending ? 'Saving…' : 'Next'}
        </button>
      </div>
      {restricted.length > 0 ? (
        <RestrictedItemsModal
          items={restricted}
          onClose={() => {
            setRestricted([]);
          }}
          onLeave={onLeave}
          onRemoved={() => {
            setRestricted([]);
            setFormErrors([]);
          }}
        />
      ) : null}
    </form>
  );
}

function BillingFields({ form, lockedEmail }: { form: UseFormReturn<BillingForm>; lockedEmail: string | null }) {
  return (
    <AddressFieldset
      form={form}
      layout={billingAddressLayout}
      title={{ legend: 'Billing Address' }}
      className="checkout-form__section"
      fieldState={{
        email: {
          disabled: lockedEmail !== null,
          hint: lockedEmail !== null ? 'The e-mail of your account' : undefined,
        },
      }}
    />
  );
}

function ShippingFields({ form }: { form: UseFormReturn<BillingForm> }) {
  const same = useWatch({ control: form.control, name: 'shippingSameAsBilling' });
  return (
    <AddressFieldset
      form={form}
      layout={shippingAddressLayout}
      title={{ legend: 'Shipping Address' }}
      className="checkout-form__section"
      lead={<CheckboxField label="Shipping address same as billing" {...form.register('shippingSameAsBilling')} />}
      showFields={!same}
    />
  );
}

function ShippingMethods({ form }: { form: UseFormReturn<BillingForm> }) {
  const methods = useQuery(shippingMethodsQuery);
  const {
    register,
    formState: { errors },
  } = form;
  const errorId = useId();
  const error = errors.shippingMethodId?.message;
  return (
    <fieldset className="checkout-form__section checkout-form__methods" aria-describedby={error ? errorId : undefined}>
      <legend>Shipping Method</legend>
      {methods.isPending ? <p role="status">Loading shipping methods…</p> : null}
      {methods.isError ? <p role="alert">The shipping methods could not be loaded.</p> : null}
      {methods.data?.map((method) => (
        <div key={method.id} className="field field--checkbox">
          <input
            id={`${errorId}-${String(method.id)}`}
            type="radio"
            value={String(method.id)}
            {...register('shippingMethodId')}
          />
          <label htmlFor={`${errorId}-${String(method.id)}`}>
            {method.name}: {formatShipping(method.price)}
          </label>
        </div>
      ))}
      {error ? (
        <p id={errorId} className="field__error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function DealerFields({ form }: { form: UseFormReturn<DealerForm> }) {
  const fflEmail = useRuntimeConfig()?.fflEmail;
  const notice = (
    <div className="checkout-ffl-notice">
      <p>
        Your cart holds FFL items: they must be shipped to a licensed dealer (FFL), and you will complete an ATF form
        4473 and a background check when you pick them up.
      </p>
      <p>
        Please ask your dealer to email their license to{' '}
        {fflEmail ? <a href={`mailto:${fflEmail}`}>{fflEmail}</a> : 'our FFL team'} with your name and order number.
      </p>
    </div>
  );
  return (
    <AddressFieldset
      form={form}
      layout={dealerAddressLayout}
      title={{ legend: 'Dealer Address' }}
      className="checkout-form__section"
      lead={notice}
    />
  );
}
