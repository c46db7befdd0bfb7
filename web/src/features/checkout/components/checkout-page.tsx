import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { PageMeta } from '../../content';
import { cartQuery } from '../../cart';
import { useSession } from '../../session';
import { EMPTY_CART_REDIRECT, STEP_BILLING, STEP_PAYMENT } from '../messages';
import { hasFflItems } from '../restrictions';
import { completedForms } from '../storage';
import { BillingStep } from './billing-step';
import { OrderSummary } from './order-summary';
import { PaymentStep } from './payment-step';
import '../checkout.css';

export type CheckoutStep = 'billing' | 'payment';

/**
 * The empty-cart redirect's navigation state, one object: `<Navigate>` navigates again whenever
 * its props change, and the data router renders the page again while it loads the next one.
 */
const EMPTY_CART_STATE = { notification: { message: EMPTY_CART_REDIRECT, type: 'warning' } } as const;
export function stepOf(value: string | null): CheckoutStep {
  return value === 'payment' ? 'payment' : 'billing';
}

/** The checkout page (`/checkout?stepId=billing|payment`, spec sections 2 and 4). */
export function CheckoutPage() {
  const [params] = useSearchParams();
  const step = stepOf(params.get('stepId'));
  const cart = useQuery(cartQuery);
  const session = useSession();
  // set when the page itself moves on (order placed, every item removed): no empty-cart warning then
  const [leaving, setLeaving] = useState(false);
  const onLeave = () => {
    setLeaving(true);
  };

  if (cart.isPending) {
    return (
      <div className="page checkout">
        <PageMeta />
        <h1>Checkout</h1>
        <p role="status">Loading your cart…</p>
      </div>
    );
  }
  if (cart.isError) {
    return (
      <div className="page checkout">
        <PageMeta />
        <h1>Checkout</h1>
        <p role="alert">Your cart could not be loaded. Please try again.</p>
      </div>
    );
  }
  if (cart.data.items.length === 0) {
    if (leaving) return null;
    return <Navigate to="/" replace state={EMPTY_CART_STATE} />;
  }

  const review = step === 'payment' ? completedForms(hasFflItems(cart.data.items)) : null;
  if (step === 'payment' && !review) return <Navigate to="/checkout?stepId=billing" replace />;

  return (
    <div className="page checkout">
      <PageMeta />
      <div className="checkout__header">
        <h1>Checkout</h1>
        {session.signedIn ? null : (
          <Link to="/login" className="button button--outline">
            Sign in
          </Link>
        )}
      </div>
      <CheckoutProgress step={step} />
      <div className="checkout__layout">
        <div className="checkout__main">
          <h2 className="checkout__step-title">{step === 'billing' ? STEP_BILLING : STEP_PAYMENT}</h2>
          {step === 'payment' && review ? (
            <PaymentStep cart={cart.data} billing={review.billing} dealer={review.dealer} onLeave={onLeave} />
          ) : (
            <BillingStep cart={cart.data} onLeave={onLeave} />
          )}
        </div>
        <OrderSummary cart={cart.data} review={review ?? undefined} />
      </div>
    </div>
  );
}

/** The two steps: complete, active or not yet reached; the first is a button back to billing. */
function CheckoutProgress({ step }: { step: CheckoutStep }) {
  const navigate = useNavigate();
  return (
    <nav className="checkout-progress" aria-label="Checkout steps">
      <ol>
        <li
          className={step === 'billing' ? 'checkout-progress__step is-active' : 'checkout-progress__step is-complete'}
        >
          {step === 'billing' ? (
            <span aria-current="step">
              1. {STEP_BILLING}
              <span className="visually-hidden"> (current step)</span>
            </span>
          ) : (
            <button
              type="button"
              className="checkout-progress__link"
              onClick={() => {
                void navigate('/checkout?stepId=billing');
              }}
            >
              1. {STEP_BILLING}
              <span className="visually-hidden"> (complete)</span>
            </button>
          )}
        </li>
        <li className={step === 'payment' ? 'checkout-progress__step is-active' : 'checkout-progress__step'}>
          <span aria-current={step === 'payment' ? 'step' : undefined}>
            2. {STEP_PAYMENT}
            <span className="visually-hidden">{step === 'payment' ? ' (current step)' : ' (not yet reached)'}</span>
          </span>
        </li>
      </ol>
    </nav>
  );
}
