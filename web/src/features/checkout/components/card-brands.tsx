import type { ReactNode } from 'react';
import { CARD_BRANDS, type CardBrand } from '../card';

/**
 * The accepted cards as logos (spec: card form, "the brand logo is highlighted by number
 * pattern"). The marks are inline SVG drawn here, shipped with the app: no image request, no
 * third party. Each logo is an image named by its brand; the detected one is marked
 * (`aria-current`, highlighted), and a polite live region announces it as the number is typed.
 */
export function CardBrands({ brand }: { brand: CardBrand | null }) {
  return (
    <>
      <ul className="card-brands" aria-label="Accepted cards">
        {CARD_BRANDS.map((name) => (
          <li
            key={name}
            className={name === brand ? 'card-brands__brand card-brands__brand--active' : 'card-brands__brand'}
            aria-current={name === brand ? 'true' : undefined}
          >
            <svg className="card-brands__logo" viewBox="0 0 48 30" role="img" aria-label={name}>
              {LOGOS[name]}
            </svg>
          </li>
        ))}
      </ul>
      <p className="visually-hidden" aria-live="polite">
        {brand ? `${brand} card detected` : ''}
      </p>
    </>
  );
}

const LOGOS: Record<CardBrand, ReactNode> = {
  Visa: (
    <>
      <rect width="48" height="30" rx="3" fill="#1a1f71" />
      <text x="24" y="20" textAnchor="middle" fill="#fff" fontSize="12" fontWeight="700" fontStyle="italic">
        VISA
      </text>
    </>
  ),
  Mastercard: (
    <>
      <rect width="48" height="30" rx="3" fill="#231f20" />
      <circle cx="19" cy="15" r="9" fill="#eb001b" />
      <circle cx="29" cy="15" r="9" fill="#f79e1b" fillOpacity="0.9" />
    </>
  ),
  'American Express': (
    <>
      <rect width="48" height="30" rx="3" fill="#2e77bc" />
      <text x="24" y="19" textAnchor="middle" fill="#fff" fontSize="9" fontWeight="700">
        AMEX
      </text>
    </>
  ),
  Discover: (
    <>
      <rect width="48" height="30" rx="3" fill="#fff" stroke="#767676" />
      <text x="19" y="18.5" textAnchor="middle" fill="#231f20" fontSize="7" fontWeight="700">
        DISC
      </text>
      <circle cx="35" cy="15" r="5" fill="#f58220" />
    </>
  ),
};
