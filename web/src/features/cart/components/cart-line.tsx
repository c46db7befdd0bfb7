import { useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import type { CartItem, InventoryWarning } from '../../../api/types';
import { VisuallyHidden } from '../../../components/ui/visually-hidden';
import { isExternalHref } from '../../../lib/paths';
import { safeImageSrc } from '../../../lib/safe-url';
import { describeItem, isPendingLine } from '../lines';
import { formatUsd } from '../money';
import { useRemoveCartItem, useSetCartItemQuantity } from '../drawer-mutations';

interface CartLineProps {
  line: CartItem;
  warning?: InventoryWarning | undefined;
}

/**
 * One cart line: image, name (a link to the product), options, unit price, the quantity (− at 1
 * removes; 0 removes; typing applies on blur and on Enter) and Remove. A line still being added
 * shows 'Adding…' and cannot be changed yet.
 */
export function CartLine({ line, warning }: CartLineProps) {
  const setQuantity = useSetCartItemQuantity();
  const remove = useRemoveCartItem();
  // what the shopper is typing, until it applies; otherwise the cart's quantity is shown
  const [draft, setDraft] = useState<string | null>(null);
  const pending = isPendingLine(line);
  const description = describeItem(line.productName, line.options);
  const imageSrc = safeImageSrc(line.imageUrl);

  const change = (quantity: number) => {
    setQuantity.mutate({ id: line.id, quantity: Math.max(0, quantity) });
  };
  const step = (by: 1 | -1) => {
    setQuantity.mutate({ id: line.id, by });
  };
  const applyDraft = () => {
    if (draft === null) return;
    setDraft(null);
    const quantity = Number(draft.trim());
    if (draft.trim() === '' || !Number.isInteger(quantity) || quantity < 0 || quantity === line.quantity) return;
    change(quantity);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    applyDraft();
  };

  return (
    <li className={['cart-line', pending ? 'cart-line--pending' : ''].filter(Boolean).join(' ')} aria-busy={pending}>
      {imageSrc ? (
        <img className="cart-line__image" src={imageSrc} alt="" width={80} height={80} />
      ) : (
        <span className="cart-line__image" />
      )}
      <div className="cart-line__body">
        <h3 className="cart-line__name">
          {line.productUrl && !isExternalHref(line.productUrl) ? (
            <Link to={line.productUrl}>{line.productName}</Link>
          ) : (
            line.productName
          )}
        </h3>
        {line.options.length > 0 ? (
          <dl className="cart-line__options">
            {line.options.map((option) => (
              <div key={`${option.label}:${option.value}`}>
                <dt>{option.label}</dt>
                <dd>{option.value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
        <UnitPrice line={line} pending={pending} />
        <div className="cart-line__controls">
          <div className="cart-line__quantity">
            <button
              type="button"
              className="cart-line__step"
              aria-label={`Decrease quantity of ${description}`}
              disabled={pending}
              onClick={() => {
                step(-1);
              }}
            >
              <span aria-hidden="true">−</span>
            </button>
            <input
              type="number"
              className="cart-line__quantity-input"
              aria-label={`Quantity of ${description}`}
              min={0}
              max={999}
              step={1}
              inputMode="numeric"
              disabled={pending}
              value={draft ?? String(line.quantity)}
              onChange={(event) => {
                setDraft(event.target.value);
              }}
              onBlur={applyDraft}
              onKeyDown={onKeyDown}
            />
            <button
              type="button"
              className="cart-line__step"
              aria-label={`Increase quantity of ${description}`}
              disabled={pending}
              onClick={() => {
                step(1);
              }}
            >
              <span aria-hidden="true">+</span>
            </button>
          </div>
          <button
            type="button"
            className="cart-line__remove"
            aria-label={`Remove ${description}`}
            disabled={pending}
            onClick={() => {
              remove.mutate({ id: line.id });
            }}
          >
            Remove
          </button>
        </div>
        {warning ? <p className="cart-line__warning">{warning.message}</p> : null}
      </div>
    </li>
  );
}

/** The unit price; struck-through original beside it when the line is discounted. */
function UnitPrice({ line, pending }: { line: CartItem; pending: boolean }) {
  if (pending) return <p className="cart-line__price">Adding…</p>;
  // the drawer's reading of the line: price is the original, productPrice the unit price charged
  const discounted = line.productPrice < line.price;
  if (!discounted) return <p className="cart-line__price">{formatUsd(line.productPrice)}</p>;
  return (
    <p className="cart-line__price cart-line__price--discounted">
      <s>
        <VisuallyHidden>Original price </VisuallyHidden>
        {formatUsd(line.price)}
      </s>{' '}
      <VisuallyHidden>Discounted price </VisuallyHidden>
      <span className="cart-line__final-price">{formatUsd(line.productPrice)}</span>
    </p>
  );
}
