import type { FieldValues, Path } from 'react-hook-form';

/**
 * What one use of the address fieldset shows, as data: its fields in order, each with its label,
 * its `autocomplete` token and whether it is required; a row of two is an array. The rules and
 * their messages live in the use's form schema, beside its layout; each use's test checks that
 * the fields marked required here are the ones its schema requires.
 */
export interface AddressLayout<T extends FieldValues> {
  rows: readonly AddressRow<T>[];
}

/** One field, or several side by side (`form-row`). */
export type AddressRow<T extends FieldValues> = AddressField<T> | readonly AddressField<T>[];

interface FieldBase<T extends FieldValues> {
  name: Path<T>;
  label: string;
  required?: boolean;
  /** The `autocomplete` token(s), e.g. `billing postal-code`; `off` where a browser must not fill in the shopper. */
  autoComplete?: string;
}

/** A free text input; `keep` cleans what is typed or pasted (e.g. digits only). */
export interface TextAddressField<T extends FieldValues> extends FieldBase<T> {
  kind: 'text';
  type?: 'text' | 'email';
  inputMode?: 'numeric';
  keep?: (value: string) => string;
}

/** A phone input, formatted US style as it is typed. */
export interface PhoneAddressField<T extends FieldValues> extends FieldBase<T> {
  kind: 'phone';
}

export interface Region {
  code: string;
  name: string;
}

/**
 * The state: a list of the country's regions, or free text for a country without a list. With
 * `countryField` the list follows that field's value, else `regions('')` is the list.
 */
export interface RegionAddressField<T extends FieldValues> extends FieldBase<T> {
  kind: 'region';
  placeholder: string;
  regions: (country: string) => readonly Region[];
  countryField?: Path<T>;
}

/** The country: a list; `clears` names the field emptied when it changes (the state). */
export interface CountryAddressField<T extends FieldValues> extends FieldBase<T> {
  kind: 'country';
  countries: readonly string[];
  clears?: Path<T>;
}

export interface CheckboxAddressField<T extends FieldValues> extends FieldBase<T> {
  kind: 'checkbox';
}

export type AddressField<T extends FieldValues> =
  TextAddressField<T> | PhoneAddressField<T> | RegionAddressField<T> | CountryAddressField<T> | CheckboxAddressField<T>;

/** Every field of a layout, rows flattened, in order. */
export function fieldsOf<T extends FieldValues>(layout: AddressLayout<T>): AddressField<T>[] {
  return layout.rows.flatMap((row): AddressField<T>[] => (isRowOfSeveral(row) ? [...row] : [row]));
}

/** The names of the fields a layout marks required. */
export function requiredNames<T extends FieldValues>(layout: AddressLayout<T>): Path<T>[] {
  return fieldsOf(layout)
    .filter((field) => field.required === true)
    .map((field) => field.name);
}

export function isRowOfSeveral<T extends FieldValues>(row: AddressRow<T>): row is readonly AddressField<T>[] {
  return Array.isArray(row);
}
