import { File as NodeFile } from 'node:buffer';

/**
 * A multipart request's form, for an MSW handler. `request.formData()` fails under jsdom on Node
 * 24 and later: Undici's multipart parser makes each file part with the global `File`, which the
 * jsdom environment has replaced with jsdom's, and then asserts that the part is Node's File. The
 * body is read first; only the parse, which needs no I/O, runs with Node's File in place.
 */
export async function formDataOf(request: Request): Promise<FormData> {
  const body = await request.arrayBuffer();
  const headers = { 'content-type': request.headers.get('content-type') ?? '' };
  const jsdomFile = globalThis.File;
  globalThis.File = NodeFile as unknown as typeof File;
  try {
    return await new Response(body, { headers }).formData();
  } finally {
    globalThis.File = jsdomFile;
  }
}
