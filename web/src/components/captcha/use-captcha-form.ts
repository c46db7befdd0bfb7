import { zodResolver } from '@hookform/resolvers/zod';
import { useRef, type RefObject, type SubmitEvent } from 'react';
import {
  useForm,
  type DefaultValues,
  type FieldValues,
  type Path,
  type PathValue,
  type UseFormReturn,
} from 'react-hook-form';
import type { $ZodType } from 'zod/v4/core';
import { applyServerErrors } from '../../lib/forms/rules';
import type { CaptchaHandle } from './captcha';

/** A captcha form's values: its own fields plus the captcha's token (checked by the schema). */
export type CaptchaValues = FieldValues & { captcha: string };

export interface CaptchaFormOptions<T extends CaptchaValues, Answer> {
  /** Validates the values, the token included: without a token the call is never made. */
  schema: $ZodType<T, T>;
  defaultValues: DefaultValues<T>;
  /** The form's call (its mutation); a rejection is the failure path. */
  send: (values: T) => Promise<Answer>;
  /** Forms that stay on the page: after success, clear the fields and untick the captcha. */
  clearOnSuccess?: boolean;
  /** After a successful call (and the clearing): the message, the navigation. Still on the failure path if it throws. */
  onSuccess?: (answer: Answer, values: T) => void | Promise<void>;
  /** The fields whose problem+json messages (`errors: {field: message}`) show under them. */
  serverFields?: readonly Path<T>[];
  /**
   * After a failed call, once the captcha is cleared and reset and the field messages are shown;
   * `fieldErrorsShown` says whether any was, for forms that fall back to a general message.
   */
  onFailure?: (error: unknown, fieldErrorsShown: boolean) => void;
}

/** What `<Captcha {...captchaProps} />` takes: the handle, the token's message, the token. */
export interface CaptchaProps {
  ref: RefObject<CaptchaHandle | null>;
  error: string | undefined;
  onChange: (token: string) => void;
}

export interface CaptchaForm<T extends CaptchaValues> {
  form: UseFormReturn<T>;
  /** The form element's submit handler: validate, then send. */
  onSubmit: (event: SubmitEvent<HTMLFormElement>) => void;
  captchaProps: CaptchaProps;
}

/**
 * The routine every captcha-protected form shares (spec: a failed submit spends the token). The
 * widget's token is a form field, validated with the others (a missing one reads 'Captcha is
 * required' and nothing is sent). On failure the token is cleared and the widget reset, so it
 * must be solved again, and the server's field messages go under their fields. On success forms
 * that stay on the page are cleared, the widget included.
 */
export function useCaptchaForm<T extends CaptchaValues, Answer>({
  schema,
  defaultValues,
  send,
  clearOnSuccess = false,
  onSuccess,
  serverFields = [],
  onFailure,
}: CaptchaFormOptions<T, Answer>): CaptchaForm<T> {
  const captcha = useRef<CaptchaHandle>(null);
  const form = useForm<T>({ resolver: zodResolver(schema), defaultValues });
  const { setValue, getFieldState, formState } = form;
  // read while rendering, as react-hook-form's proxy subscribes to what a render reads
  const { isSubmitted } = formState;
  // `captcha` is a field of every T, which react-hook-form's path types cannot see through a generic
  const tokenField = 'captcha' as Path<T>;
  const setToken = (token: string, options?: { shouldValidate: boolean }) => {
    setValue(tokenField, token as PathValue<T, Path<T>>, options);
  };

  const submit = async (values: T) => {
    try {
      const answer = await send(values);
      if (clearOnSuccess) {
        form.reset();
        captcha.current?.reset();
      }
      await onSuccess?.(answer, values);
    } catch (error) {
      setToken('');
      captcha.current?.reset();
      const fieldErrorsShown = applyServerErrors(error, form.setError, serverFields);
      onFailure?.(error, fieldErrorsShown);
    }
  };

  return {
    form,
    onSubmit: (event) => void form.handleSubmit(submit)(event),
    captchaProps: {
      ref: captcha,
      // passing formState subscribes this render to the token's error, as reading errors would
      error: getFieldState(tokenField, formState).error?.message,
      onChange: (token) => {
        setToken(token, { shouldValidate: isSubmitted });
      },
    },
  };
}
