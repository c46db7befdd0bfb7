import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useRef } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import type { Profile } from '../../../api/types';
import { isApiProblem } from '../../../lib/api';
import { useRuntimeConfig } from '../../../lib/runtime-config';
import { notify, notifyError } from '../../../components/notifications/store';
import { PRO_DEAL_ACCEPT } from '../pro-deal-files';
import { proDealProgram } from '../programs';
import { useApplyForProDeal } from '../queries';
import { proDealSchema, type ProDealValues } from '../schemas';
import { AccountPage } from './account-page';

export const PRO_DEAL_SUBMITTED = 'Your Pro Deal application has been submitted and is pending verification.';

/** Pro Deal: what it is, who may apply, the documents and terms, and the upload form. */
export function ProDealPage() {
  return <AccountPage title="Pro Deal">{(profile) => <ProDeal profile={profile} />}</AccountPage>;
}

function ProDeal({ profile }: { profile: Profile }) {
  const contact = useRuntimeConfig()?.proDealEmail ?? '';
  const program = proDealProgram(profile.proDealStatus);
  return (
    <div className="pro-deal">
      <p>
        The Pro Deal program offers special pricing to professionals of the firearms and outdoor industry for their own
        use. Apply once with a document that shows where you work; our team reviews every application.
      </p>
      <p className="program-status">
        <strong>Status:</strong> {program.text}
      </p>
      <h2>Eligibility</h2>
      <p>Dealers, FFLs and retail employees are ineligible for the Pro Deal program.</p>
      <h2>Acceptable Documents</h2>
      <ul>
        <li>A pay stub with your personal data redacted</li>
        <li>A work ID or badge</li>
        <li>A screenshot of your work e-mail signature that matches the e-mail address of your account</li>
      </ul>
      <h2>Terms</h2>
      <ul>
        <li>Pro Deal purchases are for personal use only.</li>
        <li>No resale of Pro Deal purchases.</li>
        <li>All sales are final.</li>
        <li>Orders may be rejected if an item is out of stock.</li>
        <li>The program may be changed at any time.</li>
        <li>Abuse of the program results in the loss of Pro Deal privileges.</li>
      </ul>
      {contact ? (
        <p>
          Questions about the Pro Deal program? Write to <a href={`mailto:${contact}`}>{contact}</a>.
        </p>
      ) : null}
      {program.action === null ? null : profile.email ? (
        <ProDealForm />
      ) : (
        <div className="account-prompt" role="note">
          <p>Your account has no e-mail address. Please update your contact information before applying.</p>
          <Link to="/profile/details" state={{ from: '/profile/pro-deal' }} className="button">
            Update Contact Information
          </Link>
        </div>
      )}
    </div>
  );
}

function ProDealForm() {
  const apply = useApplyForProDeal();
  const input = useRef<HTMLInputElement>(null);
  const hintId = useId();
  const errorsId = useId();
  const {
    control,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ProDealValues>({
    resolver: zodResolver(proDealSchema),
    defaultValues: { documents: [] },
    mode: 'onChange',
    criteriaMode: 'all',
  });
  const problems = messagesOf(errors.documents);

  const submit = async (values: ProDealValues) => {
    try {
      const answer = await apply.mutateAsync(values.documents);
      reset({ documents: [] });
      if (input.current) input.current.value = '';
      notify({ message: answer.message || PRO_DEAL_SUBMITTED, type: 'success' });
    } catch (error) {
      // the BFF names the refused file under the part's name
      const message = isApiProblem(error) ? error.errors?.supportingDocuments : undefined;
      if (message) setError('documents', { type: 'server', message });
      else notifyError(error);
    }
  };

  return (
    <form
      className="account-form"
      aria-label="Pro Deal application"
      noValidate
      onSubmit={(event) => void handleSubmit(submit)(event)}
    >
      <h2>Apply</h2>
      <Controller
        control={control}
        name="documents"
        render={({ field }) => (
          <div className="field">
            <label htmlFor={`${hintId}-input`} className="field__label">
              Supporting Documents
            </label>
            <input
              ref={(element) => {
                input.current = element;
                field.ref(element);
              }}
              id={`${hintId}-input`}
              name={field.name}
              type="file"
              multiple
              accept={PRO_DEAL_ACCEPT}
              className="field__control"
              aria-invalid={problems.length > 0 ? true : undefined}
              aria-describedby={problems.length > 0 ? `${hintId} ${errorsId}` : hintId}
              onBlur={field.onBlur}
              onChange={(event) => {
                field.onChange(Array.from(event.target.files ?? []));
              }}
            />
            <p id={hintId} className="field__hint">
              Accepted file types: png, jpg, jpeg, tiff, tif and pdf. You may upload several files; each must be under
              0.5 MB.
            </p>
            {problems.length > 0 ? (
              <ul id={errorsId} className="field__error" role="alert">
                {problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
              </ul>
            ) : null}
          </div>
        )}
      />
      <div className="account-form__actions">
        <button type="submit" className="button" disabled={isSubmitting}>
          Submit Application
        </button>
      </div>
    </form>
  );
}

/** Every message of a field validated with `criteriaMode: 'all'`. */
function messagesOf(error: { message?: string | undefined; types?: Record<string, unknown> } | undefined): string[] {
  if (!error) return [];
  const all = Object.values(error.types ?? {}).flatMap((value) =>
    Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : typeof value === 'string'
        ? [value]
        : [],
  );
  if (all.length > 0) return [...new Set(all)];
  return error.message ? [error.message] : [];
}
