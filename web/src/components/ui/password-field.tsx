import { useState } from 'react';
import { TextField } from './field';

type PasswordFieldProps = Omit<Parameters<typeof TextField>[0], 'type'>;

/** A password input with a Show/Hide Password toggle. */
export function PasswordField(props: PasswordFieldProps) {
  const [visible, setVisible] = useState(false);
  return (
    <div className="password-field">
      <TextField {...props} type={visible ? 'text' : 'password'} />
      <button
        type="button"
        className="password-field__toggle"
        aria-pressed={visible}
        onClick={() => {
          setVisible((value) => !value);
        }}
      >
        {visible ? 'Hide Password' : 'Show Password'}
      </button>
    </div>
  );
}
