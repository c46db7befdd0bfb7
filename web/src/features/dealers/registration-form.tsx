import { useMutation } from '@tanstack/react-query';
import { useId, type ChangeEvent } from 'react';
import { useWatch } from 'react-hook-form';
import { AddressFieldset } from '../../components/address/address-fieldset';
import { Captcha } from '../../components/captcha/captcha';
import { useCaptchaForm } from '../../components/captcha/use-captcha-form';
import { notify, notifyError } from '../../components/notifications/store';
import { CheckboxField, TextField } from '../../components/ui/field';
import { PhoneField } from '../../components/ui/phone-field';
import { registerDealer } from './api';
import { companyAddressLayout, locatorAddressLayout } from './registration-address-layouts';
import {
  COMPANY_ADDRESS_FIELDS,
  DOCUMENT_ACCEPT,
  DOCUMENT_HINT,
  LOCATOR_ADDRESS_FIELDS,
  dealerRegistrationSchema,
  emptyDealerRegistration,
  registrationParts,
  type DealerRegistrationValues,
} from './registration-schema';

type DocumentField = 'fflDocument' | 'sotDocument';

const SERVER_FIELDS = [
  'company',
  'website',
  'phone',
  'email',
  'firstName',
  'lastName',
  ...COMPANY_ADDRESS_FIELDS,
  ...LOCATOR_ADDRESS_FIELDS,
  'fflNumber',
  'sotEin',
  'fflDocument',
  'sotDocument',
  'captcha',
] as const;

/**
 * The dealer registration form (spec "Dealer registration"): company and contact, company
 * address, the dealer-locator listing (its own address only when 'use this address' is off), the
 * FFL/SOT licence with its documents (pdf, tif or tiff, checked when chosen), and the captcha.
 * Success shows the server's message and clears the form; failure resets the captcha and shows
 * the error.
 */
export function DealerRegistrationForm({ labelledBy }: { labelledBy?: string }) {
  const send = useMutation({
    // the form resets its captcha and shows the failure itself (onFailure below)
    meta: { errorToast: false },
    mutationFn: (values: DealerRegistrationValues) =>
      registerDealer(
        registrationParts(values),
        values.hasFflSot ? { fflDocument: values.fflDocument, sotDocument: values.sotDocument } : {},
      ),
  });
  const { form, onSubmit, captchaProps } = useCaptchaForm({
    schema: dealerRegistrationSchema,
    defaultValues: emptyDealerRegistration,
    send: send.mutateAsync,
    clearOnSuccess: true,
    onSuccess: (answer) => {
      notify({
        message:
          answer.message || 'Thank you for registering. Our dealer team will review your application and contact you.',
        type: 'success',
      });
    },
    serverFields: SERVER_FIELDS,
    onFailure: notifyError,
  });
  const {
    register,
    setValue,
    getValues,
    control,
    formState: { errors, isSubmitting },
  } = form;
  const [appearInLocator, useThisAddress, hasFflSot] = useWatch({
    control,
    name: ['appearInDealerLocator', 'useThisAddressInDealerLocator', 'hasFflSot'],
  });
  const companyId = useId();
  const locatorId = useId();
  const fflId = useId();

  const useThisAddressField = register('useThisAddressInDealerLocator', {
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      if (!event.target.checked) return;
      // the locator address is the company address
      const values = getValues();
      setValue('locatorStreetAddress', values.streetAddress);
      setValue('locatorCity', values.city);
      setValue('locatorState', values.state);
      setValue('locatorPostalCode', values.postalCode);
      setValue('locatorCountry', values.country);
    },
  });

  // the document inputs live only while the FFL/SOT box is ticked: unticking drops the files
  const hasFflSotField = register('hasFflSot', {
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      if (event.target.checked) return;
      setValue('fflDocument', null);
      setValue('sotDocument', null);
    },
  });

  const documentInput = (field: DocumentField) => ({
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      setValue(field, event.target.files?.[0] ?? null, { shouldValidate: true });
    },
  });

  return (
    <form
      className="dealer-registration-form"
      aria-labelledby={labelledBy}
      aria-label={labelledBy ? undefined : 'Dealer registration'}
      noValidate
      onSubmit={onSubmit}
    >
      <fieldset className="form-section" aria-labelledby={companyId}>
        <legend id={companyId}>Business and Contact</legend>
        <div className="form-row">
          <TextField
            label="Company"
            autoComplete="organization"
            required
            error={errors.company?.message}
            {...register('company')}
          />
          <TextField
            label="Website"
            type="url"
            inputMode="url"
            autoComplete="url"
            required
            error={errors.website?.message}
            {...register('website')}
          />
        </div>
        <div className="form-row">
          <TextField
            label="First Name"
            autoComplete="given-name"
            required
            error={errors.firstName?.message}
            {...register('firstName')}
          />
          <TextField
            label="Last Name"
            autoComplete="family-name"
            required
            error={errors.lastName?.message}
            {...register('lastName')}
          />
        </div>
        <div className="form-row">
          <PhoneField label="Phone" autoComplete="tel" required error={errors.phone?.message} {...register('phone')} />
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            required
            error={errors.email?.message}
            {...register('email')}
          />
        </div>
      </fieldset>

      <AddressFieldset
        form={form}
        layout={companyAddressLayout}
        title={{ legend: 'Company Address' }}
        className="form-section"
      />

      <fieldset className="form-section" aria-labelledby={locatorId}>
        <legend id={locatorId}>Dealer Locator</legend>
        <CheckboxField label="Appear in the dealer locator" {...register('appearInDealerLocator')} />
        {appearInLocator ? (
          <CheckboxField label="Use this address in the dealer locator" {...useThisAddressField} />
        ) : null}
        {appearInLocator && !useThisAddress ? (
          <AddressFieldset
            form={form}
            layout={locatorAddressLayout}
            title={{ label: 'Dealer locator address' }}
            className="form-subsection"
          />
        ) : null}
      </fieldset>

      <fieldset className="form-section" aria-labelledby={fflId}>
        <legend id={fflId}>FFL / SOT</legend>
        <CheckboxField label="I have an FFL / SOT" {...hasFflSotField} />
        {hasFflSot ? (
          <div className="form-subsection">
            <div className="form-row">
              <TextField label="FFL Number" required error={errors.fflNumber?.message} {...register('fflNumber')} />
              <TextField label="SOT / EIN (optional)" error={errors.sotEin?.message} {...register('sotEin')} />
            </div>
            <FileField
              label="FFL Document"
              hint={DOCUMENT_HINT}
              required
              error={errors.fflDocument?.message}
              {...documentInput('fflDocument')}
            />
            <FileField
              label="SOT Document (optional)"
              hint={DOCUMENT_HINT}
              error={errors.sotDocument?.message}
              {...documentInput('sotDocument')}
            />
          </div>
        ) : null}
      </fieldset>

      <Captcha {...captchaProps} />
      <button type="submit" className="button" disabled={isSubmitting}>
        {isSubmitting ? 'Submitting…' : 'Submit'}
      </button>
    </form>
  );
}

interface FileFieldProps {
  label: string;
  hint: string;
  required?: boolean;
  error?: string | undefined;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}

function FileField({ label, hint, required, error, onChange }: FileFieldProps) {
  const id = useId();
  const describedBy = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <input
        id={id}
        type="file"
        className="field__control"
        accept={DOCUMENT_ACCEPT}
        aria-required={required ? true : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={onChange}
      />
      <p id={`${id}-hint`} className="field__hint">
        {hint}
      </p>
      {error ? (
        <p id={`${id}-error`} className="field__error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
