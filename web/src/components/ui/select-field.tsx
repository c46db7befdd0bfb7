import { useId, type ReactNode, type Ref, type SelectHTMLAttributes } from 'react';

interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> {
  label: string;
  error?: string | undefined;
  /** `[value, label]` pairs; or give the `<option>`s as children. */
  options?: readonly (readonly [value: string, label: string])[];
  /** The empty first option's text (with `options`); none when omitted. */
  placeholder?: string;
  children?: ReactNode;
  ref?: Ref<HTMLSelectElement>;
}

/** A labelled select with its validation message, styled and announced like `TextField`. */
export function SelectField({
  label,
  error,
  options,
  placeholder,
  children,
  ref,
  className,
  required,
  ...select
}: SelectFieldProps) {
  const id = useId();
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <select
        ref={ref}
        id={id}
        className="field__control"
        aria-invalid={error ? true : undefined}
        aria-required={required ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...select}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options?.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
        {children}
      </select>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
