import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { z } from 'zod/mini';
import type { Cart } from '../../../api/types';
import { TextField } from '../../../components/ui/field';
import { requiredText } from '../../../lib/forms/rules';
import { promotionOf, showPromotion } from '../../promotions';
import { useApplyPromoCode } from '../drawer-mutations';

const promoSchema = z.object({ promoCode: requiredText('Promo code') });
type Values = z.infer<typeof promoSchema>;

/**
 * The promo code: required; the answer is 'Discount code applied successfully' or 'Discount code
 * is invalid' (announced in the drawer). An applied discount's promotion page opens in the
 * promotion modal, with 'Shop Now' to its collection.
 */
export function PromoCodeForm({ cart }: { cart: Cart }) {
  const apply = useApplyPromoCode();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<Values>({ resolver: zodResolver(promoSchema), defaultValues: { promoCode: '' } });
  const promotion = promotionOf(cart);

  const submit = (values: Values) => {
    apply.mutate(values.promoCode.trim(), {
      onSuccess: () => {
        reset();
      },
    });
  };

  return (
    <div className="promo-code">
      <form
        className="promo-code__form"
        aria-label="Promo code"
        noValidate
        onSubmit={(event) => void handleSubmit(submit)(event)}
      >
        <TextField
          label="Promo code"
          autoComplete="off"
          required
          error={errors.promoCode?.message}
          {...register('promoCode')}
        />
        <button type="submit" className="button button--outline" disabled={apply.isPending}>
          Apply
        </button>
      </form>
      {cart.appliedDiscounts.length > 0 ? (
        <ul className="promo-code__applied" aria-label="Applied discounts">
          {cart.appliedDiscounts.map((discount) => (
            <li key={discount.promoCode}>
              {discount.promoCode}: {String(discount.discountPercentage)}% off
            </li>
          ))}
        </ul>
      ) : null}
      {promotion ? (
        <button
          type="button"
          className="promo-code__promotion"
          onClick={() => {
            showPromotion(promotion);
          }}
        >
          See the promotion: {promotion.title}
        </button>
      ) : null}
    </div>
  );
}
