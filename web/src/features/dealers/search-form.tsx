import { zodResolver } from '@hookform/resolvers/zod';
import { useId, type ChangeEvent, type InputHTMLAttributes, type Ref } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod/mini';
import { RADIUS_OPTIONS, parseRadius, sanitizeZip, type DealerSearch } from './locator-search';

interface ZipInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'inputMode' | 'maxLength'> {
  ref?: Ref<HTMLInputElement>;
}

/**
 * A zip box that keeps digits only, at most five (spec: 'zip accepts digits only'): typed and
 * pasted text is cleaned before the form sees it. No `maxLength`: it would cut a paste such as
 * 'ZIP: 30303' before the digits are picked out.
 */
export function ZipInput({ onChange, ref, ...input }: ZipInputProps) {
  return (
    <input
      {...input}
      ref={ref}
      type="text"
      inputMode="numeric"
      autoComplete="postal-code"
      onChange={(event: ChangeEvent<HTMLInputElement>) => {
        const clean = sanitizeZip(event.target.value);
        if (clean !== event.target.value) event.target.value = clean;
        onChange?.(event);
      }}
    />
  );
}

export const dealerSearchSchema = z.object({
  zip: z.string().check(z.regex(/^(\d{5})?$/, 'Zip code must be 5 digits')),
  radius: z
    .string()
    .check(z.refine((value) => (RADIUS_OPTIONS as readonly number[]).includes(Number(value)), 'Choose a radius')),
});
type SearchValues = z.infer<typeof dealerSearchSchema>;

/** The locator's search: zip (digits only, five or none) and radius (50 to 250 miles, default 50). */
export function DealerSearchForm({
  initial,
  onSearch,
}: {
  initial: DealerSearch;
  onSearch: (search: DealerSearch) => void;
}) {
  const zipId = useId();
  const radiusId = useId();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<SearchValues>({
    resolver: zodResolver(dealerSearchSchema),
    defaultValues: { zip: initial.zip, radius: String(initial.radius) },
  });
  const zipError = errors.zip?.message;

  return (
    <form
      className="dealer-search"
      role="search"
      aria-label="Find a dealer"
      noValidate
      onSubmit={(event) =>
        void handleSubmit((values) => {
          onSearch({ zip: values.zip, radius: parseRadius(values.radius) });
        })(event)
      }
    >
      <div className="field">
        <label htmlFor={zipId} className="field__label">
          Zip code
        </label>
        <ZipInput
          id={zipId}
          className="field__control"
          placeholder="Zip code"
          aria-invalid={zipError ? true : undefined}
          aria-describedby={zipError ? `${zipId}-error` : undefined}
          {...register('zip')}
        />
        {zipError ? (
          <p id={`${zipId}-error`} className="field__error">
            {zipError}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={radiusId} className="field__label">
          Radius
        </label>
        <select id={radiusId} className="field__control" {...register('radius')}>
          {RADIUS_OPTIONS.map((radius) => (
            <option key={radius} value={String(radius)}>
              {radius} miles
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}
