import { useEffect, useId, useRef, type ReactNode } from 'react';

interface DialogProps {
  /** The dialog's visible title (its accessible name). */
  title: string;
  /** Called when the dialog asks to close: Escape, the close button, or a click on the backdrop. */
  onClose: () => void;
  children: ReactNode;
  className?: string;
  /** Whether a click on the backdrop closes it (default true). */
  closeOnBackdrop?: boolean;
  /** Whether to show the × close button (default true). */
  showClose?: boolean;
}

/**
 * A modal dialog on the native `<dialog>` element: open while mounted (`showModal`, so the rest of
 * the page is inert and focus stays inside), named by its title, closed with Escape. Focus goes
 * back to where it was when the dialog closes.
 */
export function Dialog({ title, onClose, children, className, closeOnBackdrop = true, showClose = true }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();

    // Escape: let the parent decide (it unmounts the dialog)
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    // a close the page did not ask for (e.g. a second Escape the browser does not let us cancel)
    const onNativeClose = () => {
      onCloseRef.current();
    };
    const onClick = (event: MouseEvent) => {
      // clicks on the backdrop target the <dialog> itself; its content fills the box
      if (closeOnBackdrop && event.target === dialog) onCloseRef.current();
    };
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onNativeClose);
    dialog.addEventListener('click', onClick);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onNativeClose);
      dialog.removeEventListener('click', onClick);
      if (dialog.open) dialog.close();
      if (returnFocus?.isConnected) returnFocus.focus({ preventScroll: true });
    };
  }, [closeOnBackdrop]);

  return (
    <dialog ref={ref} className={['dialog', className].filter(Boolean).join(' ')} aria-labelledby={titleId}>
      <div className="dialog__content">
        <div className="dialog__header">
          <h2 id={titleId} className="dialog__title">
            {title}
          </h2>
          {showClose ? (
            <button
              type="button"
              className="dialog__close icon-button"
              aria-label="Close"
              onClick={() => {
                onCloseRef.current();
              }}
            >
              <span aria-hidden="true">×</span>
            </button>
          ) : null}
        </div>
        {children}
      </div>
    </dialog>
  );
}
