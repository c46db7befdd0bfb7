import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import type { Cart, CheckoutForm, OrderPlaced } from '../../../api/types';
import { allFflItems } from '../restrictions';
import { notify } from '../../../components/notifications/store';
import { TextField } from '../../../components/ui/field';
import { errorMessage } from '../../../lib/api';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import { recordPurchase } from '../../analytics';
import { placeOrder } from '../api';
import { toCheckoutForm } from '../wire';
import { cardBrand, EXPIRY_MONTHS, expiryYears, formatCardNumber, maxCardDigits } from '../card';
import { resetCart } from '../cart-bridge';
import { createOrderPlacer } from '../idempotency';
import { cardSchema, emptyCardForm, type BillingForm, type CardForm, type DealerForm } from '../schemas';
import { clearForms } from '../storage';
import { tokenizeCard } from '../tokenizer';
import { CardBrands } from './card-brands';
import { SelectField } from '../../../components/ui/select-field';

interface PaymentStepProps {
  /** The computed cart: its FFL items decide the shipping fields, its totals the purchase's value. */
  cart: Cart;
  billing: BillingForm;
  dealer: DealerForm | null;
  /** Called before the page leaves checkout on its own (so the empty-cart redirect stays quiet). */
  onLeave: () => void;
}

const MONTH_OPTIONS = EXPIRY_MONTHS.map((month) => [month, month] as const);

/** The payment step: the card form and Place Order (spec sections 2, 4 and 5). */
export function PaymentStep({ cart, billing, dealer, onLeave }: PaymentStepProps) {
  const payment = useRuntimeConfig()?.payment;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [placer] = useState(() => createOrderPlacer<CheckoutForm, OrderPlaced>({ send: placeOrder }));
  const [placing, setPlacing] = useState(false);
  const [years] = useState(() => expiryYears().map((year) => [year, year] as const));
  const {
    register,
    handleSubmit,
    setValue,
    control,
    formState: { errors },
  } = useForm<CardForm>({ resolver: zodResolver(cardSchema), defaultValues: emptyCardForm });
  const cardNumber = useWatch({ control, name: 'cardNumber' });
  const brand = cardBrand(cardNumber);

  const place = async (card: CardForm) => {
    if (!payment) {
      notify({ message: 'Payments are not available right now. Please try again later.', type: 'error' });
      return;
    }
    // a double click: the first click's attempt is the only one
    if (placer.isPlacing()) return;
    setPlacing(true);
    try {
      const placed = await placer.place(async () => ({
        ...toCheckoutForm(billing, dealer, allFflItems(cart.items)),
        paymentToken: await tokenizeCard(payment, card),
      }));
      const orderId = placed.orderId;
      if (orderId === null) throw new Error(placed.message ?? 'The order could not be placed');
      onLeave();
      recordPurchase({ orderId: String(orderId), totalAmount: cart.totalAmount, taxAmount: cart.taxAmount });
      await navigate(`/confirm/${String(orderId)}`);
      // only now: this page must not see the forms gone (it would go back to billing) meanwhile
      clearForms();
      await resetCart(queryClient);
    } catch (error) {
      // the provider's first message, or the server's
      notify({ message: errorMessage(error), type: 'error' });
    } finally {
      setPlacing(false);
    }
  };

  return (
    <form
      className="checkout-form"
      aria-label="Payment"
      noValidate
      aria-busy={placing || undefined}
      onSubmit={(event) => {
        // a second click while an order is placed joins it (see createOrderPlacer)
        void handleSubmit(place)(event);
      }}
    >
      <p>
        <Link to="/checkout?stepId=billing">Back</Link>
      </p>
      <fieldset className="checkout-form__section">
        <legend>Credit Card</legend>
        <CardBrands brand={brand} />
        <TextField
          label="Card Number"
          inputMode="numeric"
          autoComplete="cc-number"
          required
          error={errors.cardNumber?.message}
          hint={brand ? `Card type: ${brand}` : undefined}
          maxLength={maxCardDigits(cardNumber) + 3}
          {...register('cardNumber', {
            onChange: (event: { target: { value: string } }) => {
              setValue('cardNumber', formatCardNumber(event.target.value));
            },
          })}
        />
        <div className="form-row">
          <SelectField
            label="Expiration Month"
            autoComplete="cc-exp-month"
            required
            placeholder="MM"
            options={MONTH_OPTIONS}
            error={errors.month?.message}
            {...register('month')}
          />
          <SelectField
            label="Expiration Year"
            autoComplete="cc-exp-year"
            required
            placeholder="YYYY"
            options={years}
            error={errors.year?.message}
            {...register('year')}
          />
          <TextField
            label="Card Code"
            inputMode="numeric"
            autoComplete="cc-csc"
            maxLength={4}
            required
            error={errors.cardCode?.message}
            {...register('cardCode')}
          />
        </div>
      </fieldset>
      <div className="checkout-form__actions">
        <p role="status" className="visually-hidden">
          {placing ? 'Placing your order…' : ''}
        </p>
        <button type="submit" className="button" disabled={placing}>
          {placing ? 'Placing Order…' : 'Place Order'}
        </button>
      </div>
    </form>
  );
}
