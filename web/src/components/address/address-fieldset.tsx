import { useId, type ChangeEvent, type ReactNode } from 'react';
import {
  get,
  useWatch,
  type FieldErrors,
  type FieldValues,
  type Path,
  type PathValue,
  type UseFormReturn,
} from 'react-hook-form';
import { CheckboxField, TextField } from '../ui/field';
import { PhoneField } from '../ui/phone-field';
import { SelectField } from '../ui/select-field';
import {
  isRowOfSeveral,
  type AddressField,
  type AddressLayout,
  type CountryAddressField,
  type RegionAddressField,
  type TextAddressField,
} from './address-layout';

/**
 * How the fieldset is named: a visible `<legend>`, a visible `<h2>` (the account's forms title
 * their groups with headings), or a name for assistive technology only.
 */
export type AddressTitle = { legend: string } | { heading: string } | { label: string };

/** What a use changes at render time, per field: locked (the signed-in shopper's e-mail) and its hint. */
export type AddressFieldState<T extends FieldValues> = Partial<
  Record<Path<T>, { disabled?: boolean; hint?: string | undefined }>
>;

interface AddressFieldsetProps<T extends FieldValues> {
  form: UseFormReturn<T>;
  layout: AddressLayout<T>;
  title: AddressTitle;
  className?: string;
  /** Shown before the fields (a notice, the 'same as billing' box). */
  lead?: ReactNode;
  /** False hides the fields and keeps the title and the lead (shipping same as billing). */
  showFields?: boolean;
  fieldState?: AddressFieldState<T>;
}

/**
 * The one address fieldset (issue 51): billing, shipping and the dealer in checkout, the address
 * book and the dealer registration each give it their layout (`address-layout.ts`), and it draws
 * each field with its label, `autocomplete` token, required mark and message (linked by
 * `aria-describedby`, flagged by `aria-invalid`, as the field components do).
 */
export function AddressFieldset<T extends FieldValues>({
  form,
  layout,
  title,
  className,
  lead,
  showFields = true,
  fieldState,
}: AddressFieldsetProps<T>) {
  const titleId = useId();
  const named =
    'legend' in title
      ? { caption: <legend>{title.legend}</legend> }
      : 'heading' in title
        ? { caption: <h2 id={titleId}>{title.heading}</h2>, 'aria-labelledby': titleId }
        : { caption: null, 'aria-label': title.label };
  const { caption, ...naming } = named;
  return (
    <fieldset className={className} {...naming}>
      {caption}
      {lead}
      {showFields
        ? layout.rows.map((row) =>
            isRowOfSeveral(row) ? (
              <div key={row.map((field) => field.name).join(' ')} className="form-row">
                {row.map((field) => (
                  <FieldOf key={field.name} form={form} field={field} state={fieldState?.[field.name]} />
                ))}
              </div>
            ) : (
              <FieldOf key={row.name} form={form} field={row} state={fieldState?.[row.name]} />
            ),
          )
        : null}
    </fieldset>
  );
}

interface FieldOfProps<T extends FieldValues, F extends AddressField<T> = AddressField<T>> {
  form: UseFormReturn<T>;
  field: F;
  state?: { disabled?: boolean; hint?: string | undefined } | undefined;
}

function errorOf<T extends FieldValues>(errors: FieldErrors<T>, name: Path<T>): string | undefined {
  const error: unknown = get(errors, name);
  return typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
    ? error.message
    : undefined;
}

function FieldOf<T extends FieldValues>({ form, field, state }: FieldOfProps<T>) {
  const error = errorOf(form.formState.errors, field.name);
  const common = {
    label: field.label,
    required: field.required,
    autoComplete: field.autoComplete,
    error,
    disabled: state?.disabled,
  };
  // only a text input has a hint line (a select has none)
  const hint = state?.hint;
  switch (field.kind) {
    case 'text':
      return <TextInput form={form} field={field} common={common} hint={hint} />;
    case 'phone':
      return <PhoneField {...common} hint={hint} {...form.register(field.name)} />;
    case 'region':
      return field.countryField === undefined ? (
        <RegionInput form={form} field={field} common={common} country="" />
      ) : (
        <CountryRegionInput form={form} field={field} common={common} countryField={field.countryField} />
      );
    case 'country':
      return <CountryInput form={form} field={field} common={common} />;
    case 'checkbox':
      return <CheckboxField label={field.label} disabled={state?.disabled} {...form.register(field.name)} />;
  }
}

interface InputProps<T extends FieldValues, F extends AddressField<T>> {
  form: UseFormReturn<T>;
  field: F;
  common: {
    label: string;
    required?: boolean | undefined;
    autoComplete?: string | undefined;
    error: string | undefined;
    disabled?: boolean | undefined;
  };
}

function TextInput<T extends FieldValues>({
  form,
  field,
  common,
  hint,
}: InputProps<T, TextAddressField<T>> & { hint: string | undefined }) {
  const registered = form.register(field.name);
  const { keep } = field;
  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    // cleaned in place before the form reads it, typed or pasted
    if (keep) {
      const clean = keep(event.target.value);
      if (clean !== event.target.value) event.target.value = clean;
    }
    void registered.onChange(event);
  };
  return (
    <TextField
      type={field.type}
      inputMode={field.inputMode}
      {...common}
      hint={hint}
      {...registered}
      onChange={onChange}
    />
  );
}

/** The state list that follows the country field. */
function CountryRegionInput<T extends FieldValues>({
  countryField,
  ...props
}: InputProps<T, RegionAddressField<T>> & { countryField: Path<T> }) {
  const country: unknown = useWatch({ control: props.form.control, name: countryField });
  return <RegionInput {...props} country={typeof country === 'string' ? country : ''} />;
}

function RegionInput<T extends FieldValues>({
  form,
  field,
  common,
  country,
}: InputProps<T, RegionAddressField<T>> & { country: string }) {
  const regions = field.regions(country);
  const registered = form.register(field.name);
  // a country without a list of regions: the state is typed
  if (regions.length === 0) return <TextField {...common} {...registered} />;
  return (
    <SelectField
      {...common}
      placeholder={field.placeholder}
      options={regions.map((region) => [region.code, region.name] as const)}
      {...registered}
    />
  );
}

function CountryInput<T extends FieldValues>({ form, field, common }: InputProps<T, CountryAddressField<T>>) {
  const { clears } = field;
  const registered = form.register(
    field.name,
    clears === undefined
      ? undefined
      : {
          onChange: () => {
            form.setValue(clears, '' as PathValue<T, Path<T>>);
          },
        },
  );
  const current: unknown = form.getValues(field.name);
  // a stored address may name a country no longer offered: it stays shown, not silently replaced
  const countries =
    typeof current === 'string' && current !== '' && !field.countries.includes(current)
      ? [...field.countries, current]
      : field.countries;
  return <SelectField {...common} options={countries.map((country) => [country, country] as const)} {...registered} />;
}
