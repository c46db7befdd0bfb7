import type { ChangeEvent, ComponentProps } from 'react';
import { formatUsPhone } from '../../lib/forms/phone';
import { TextField } from './field';

/**
 * A phone input, auto-formatted US style as the user types (spec). The value is formatted in
 * place before `onChange` runs, so `register(...)` and a `Controller` alike read it formatted.
 */
export function PhoneField({ onChange, ...props }: ComponentProps<typeof TextField>) {
  return (
    <TextField
      type="tel"
      {...props}
      onChange={(event: ChangeEvent<HTMLInputElement>) => {
        event.target.value = formatUsPhone(event.target.value);
        onChange?.(event);
      }}
    />
  );
}
