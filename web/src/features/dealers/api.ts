import type { DealerRegistrationForm, MessageAnswer } from '../../api/types';
import { api, unwrap } from '../../lib/api';
import type { DealerSearch } from './locator-search';

/** `GET /api/dealers`: every dealer without a zip; within the radius, nearest first, with one. */
export function fetchDealers(search: DealerSearch, signal?: AbortSignal) {
  const query = search.zip ? { zip: search.zip, radius: search.radius } : {};
  return unwrap(api.GET('/api/dealers', { params: { query }, signal }));
}

export interface RegistrationDocuments {
  fflDocument?: File | null | undefined;
  sotDocument?: File | null | undefined;
}

/** `POST /api/dealer-registrations`: the text parts and the documents as one multipart body. */
export function registerDealer(
  parts: DealerRegistrationForm,
  documents: RegistrationDocuments,
): Promise<MessageAnswer> {
  return unwrap(
    api.POST('/api/dealer-registrations', {
      body: parts,
      bodySerializer: (body) => {
        const form = new FormData();
        for (const [name, value] of Object.entries(body)) {
          if (typeof value === 'string') form.append(name, value);
        }
        if (documents.fflDocument) form.append('fflDocument', documents.fflDocument, documents.fflDocument.name);
        if (documents.sotDocument) form.append('sotDocument', documents.sotDocument, documents.sotDocument.name);
        return form;
      },
    }),
  );
}
