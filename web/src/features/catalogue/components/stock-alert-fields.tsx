import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { z } from 'zod/mini';
import { TextField } from '../../../components/ui/field';
import { errorMessage } from '../../../lib/api';
import { Captcha } from '../../../components/captcha/captcha';
import { useCaptchaForm } from '../../../components/captcha/use-captcha-form';
import { captchaToken, emailAddress } from '../../../lib/forms/rules';
import { sendStockAlert } from '../api';
import type { CartOption } from '../types';
import { STOCK_ALERT_TITLE } from './stock-alert-title';

const schema = z.object({ email: emailAddress('Email'), captcha: captchaToken() });

export interface StockAlertFormProps {
  productName: string;
  /** The out-of-stock sku's code. */
  sku: string;
  options: CartOption[];
}

/**
 * The back-in-stock form of an out-of-stock sku: e-mail and captcha. Success shows 'You will be
 * notified when {product} is back in stock'; failure shows the server's message and resets the
 * captcha (spec: account and content §8). Loaded lazily with react-hook-form, zod and the captcha,
 * through stock-alert-form.tsx: none of it is part of a product page's first screen.
 */
export default function StockAlertFields({ productName, sku, options }: StockAlertFormProps) {
  const headingId = useId();
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null);
  const send = useMutation({ mutationFn: sendStockAlert, meta: { errorToast: false } });
  const {
    form: {
      register,
      formState: { errors, isSubmitting },
    },
    onSubmit,
    captchaProps,
  } = useCaptchaForm({
    schema,
    defaultValues: { email: '', captcha: '' },
    send: (values) => {
      setOutcome(null);
      return send.mutateAsync({ ...values, productId: sku, productName, options });
    },
    onSuccess: (answer) => {
      setOutcome({ ok: true, message: answer.message || `You will be notified when ${productName} is back in stock` });
    },
    serverFields: ['email'],
    onFailure: (error) => {
      setOutcome({ ok: false, message: errorMessage(error) });
    },
  });

  return (
    <section className="stock-alert" aria-labelledby={headingId}>
      <h2 id={headingId} className="stock-alert__title">
        {STOCK_ALERT_TITLE}
      </h2>
      {outcome?.ok ? (
        <p className="stock-alert__success" role="status">
          {outcome.message}
        </p>
      ) : (
        <form aria-labelledby={headingId} noValidate onSubmit={onSubmit}>
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            required
            error={errors.email?.message}
            {...register('email')}
          />
          <Captcha {...captchaProps} />
          {outcome && !outcome.ok ? (
            <p className="field__error" role="alert">
              {outcome.message}
            </p>
          ) : null}
          <button type="submit" className="button" disabled={isSubmitting}>
            Notify Me
          </button>
        </form>
      )}
    </section>
  );
}
