import { useId, type InputHTMLAttributes, type Ref, type TextareaHTMLAttributes } from 'react';

interface FieldFrameProps {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  /** Hide the label visually (it still names the control). */
  hideLabel?: boolean;
}

interface TextFieldProps extends FieldFrameProps, Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  ref?: Ref<HTMLInputElement>;
}

/** A labelled input with its validation message (linked by aria-describedby). */
export function TextField({ label, error, hint, hideLabel, ref, className, required, ...input }: TextFieldProps) {
  const id = useId();
  const describedBy = describe(id, error, hint);
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : 'field__label'}>
        {label}
      </label>
      <input
        ref={ref}
        id={id}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-required={required ? true : undefined}
        aria-describedby={describedBy}
        {...input}
      />
      <FieldMessages id={id} error={error} hint={hint} />
    </div>
  );
}

interface TextAreaFieldProps extends FieldFrameProps, Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> {
  ref?: Ref<HTMLTextAreaElement>;
}

export function TextAreaField({
  label,
  error,
  hint,
  hideLabel,
  ref,
  className,
  required,
  ...textarea
}: TextAreaFieldProps) {
  const id = useId();
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : 'field__label'}>
        {label}
      </label>
      <textarea
        ref={ref}
        id={id}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-required={required ? true : undefined}
        aria-describedby={describe(id, error, hint)}
        {...textarea}
      />
      <FieldMessages id={id} error={error} hint={hint} />
    </div>
  );
}

interface CheckboxFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'type'> {
  label: string;
  ref?: Ref<HTMLInputElement>;
}

export function CheckboxField({ label, ref, className, ...input }: CheckboxFieldProps) {
  const id = useId();
  return (
    <div className={['field field--checkbox', className].filter(Boolean).join(' ')}>
      <input ref={ref} id={id} type="checkbox" {...input} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

function describe(id: string, error: string | undefined, hint: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function FieldMessages({ id, error, hint }: { id: string; error?: string | undefined; hint?: string | undefined }) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </>
  );
}
