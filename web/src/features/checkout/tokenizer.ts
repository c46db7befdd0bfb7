/**
 * The card payment provider's browser tokenization (Accept.js; the sandbox serves a double). Card
 * data goes from the browser to the provider only; the BFF gets the one-time token.
 */

export interface AcceptResponse {
  opaqueData?: { dataDescriptor: string; dataValue: string };
  messages: { resultCode: 'Ok' | 'Error'; message: { code: string; text: string }[] };
}

export interface AcceptApi {
  dispatchData: (
    secureData: {
      authData: { clientKey: string; apiLoginID: string };
      cardData: { cardNumber: string; month: string; year: string; cardCode: string };
    },
    responseHandler: (response: AcceptResponse) => void,
  ) => void;
}

declare global {
  interface Window {
    Accept?: AcceptApi;
  }
}

export interface PaymentConfig {
  loginId: string;
  clientKey: string;
  scriptUrl: string;
}

export interface CardData {
  cardNumber: string;
  month: string;
  year: string;
  cardCode: string;
}

/** The provider refused the card: `message` is its first message's text (shown as is). */
export class TokenizationError extends Error {
  override readonly name = 'TokenizationError';
}

let loading: Promise<AcceptApi> | null = null;

/** Loads the provider's script once per page; a failed load can be retried by the next caller. */
export function loadAccept(scriptUrl: string): Promise<AcceptApi> {
  if (window.Accept) return Promise.resolve(window.Accept);
  if (loading) return loading;
  const attempt = new Promise<AcceptApi>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = new URL(scriptUrl, window.location.href).toString();
    script.async = true;
    script.addEventListener('load', () => {
      if (window.Accept) resolve(window.Accept);
      else reject(new Error('The payment script did not load'));
    });
    script.addEventListener('error', () => {
      script.remove();
      reject(new Error('The payment script could not be loaded'));
    });
    document.head.append(script);
  });
  loading = attempt;
  attempt.catch(() => {
    if (loading === attempt) loading = null;
  });
  return attempt;
}

/** Exchanges the card for a one-time payment token, or throws `TokenizationError`. */
export async function tokenizeCard(config: PaymentConfig, card: CardData): Promise<string> {
  const accept = await loadAccept(config.scriptUrl);
  const response = await new Promise<AcceptResponse>((resolve) => {
    accept.dispatchData(
      {
        authData: { clientKey: config.clientKey, apiLoginID: config.loginId },
        cardData: {
          cardNumber: card.cardNumber.replace(/\D/g, ''),
          month: card.month,
          year: card.year,
          cardCode: card.cardCode.trim(),
        },
      },
      resolve,
    );
  });
  const token = response.opaqueData?.dataValue;
  if (response.messages.resultCode === 'Ok' && token) return token;
  throw new TokenizationError(response.messages.message[0]?.text ?? 'The card could not be verified');
}
