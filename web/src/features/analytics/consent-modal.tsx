import { Dialog } from '../../components/ui/dialog';
import { decideConsent } from './consent';

/** Shown on the first visit: analytics run only after the visitor accepts. */
export default function ConsentModal({ brandName }: { brandName: string }) {
  return (
    <Dialog
      title="Your privacy"
      className="consent-modal"
      // closing without a choice is not a choice: the modal stays until one is made
      onClose={() => undefined}
      closeOnBackdrop={false}
      showClose={false}
    >
      <p>
        {brandName || 'We'} would like to use analytics to understand how the site is used and to improve it. Analytics
        only start if you accept; you can still browse and shop if you decline.
      </p>
      <div className="consent-modal__actions">
        <button
          type="button"
          className="button"
          onClick={() => {
            decideConsent(true);
          }}
        >
          Accept
        </button>
        <button
          type="button"
          className="button button--outline"
          onClick={() => {
            decideConsent(false);
          }}
        >
          Decline
        </button>
      </div>
    </Dialog>
  );
}
