/**
 * The Pro Deal documents (spec section 5, BFF contract): png, jpg, jpeg, tiff, tif or pdf, each
 * under 0.5 MB (fewer than 512000 bytes, as the BFF counts), at least one. Checked in the browser
 * before upload with the BFF's own messages, each naming its file; the BFF checks again.
 */
export const PRO_DEAL_EXTENSIONS = ['png', 'jpg', 'jpeg', 'tiff', 'tif', 'pdf'] as const;
export const PRO_DEAL_MAX_BYTES = 512_000;
export const PRO_DEAL_ACCEPT = PRO_DEAL_EXTENSIONS.map((extension) => `.${extension}`).join(',');
export const NO_DOCUMENT = 'At least one supporting document is required';

const ACCEPTED = new Set<string>(PRO_DEAL_EXTENSIONS);

function extension(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot === -1 ? '' : fileName.slice(dot + 1).toLowerCase();
}

/** What is wrong with one file, or null when it may be sent. */
export function proDealFileProblem(file: Pick<File, 'name' | 'size'>): string | null {
  if (!ACCEPTED.has(extension(file.name))) {
    return `${file.name} is not an accepted file type: only png, jpg, jpeg, tiff, tif and pdf files are accepted`;
  }
  if (file.size >= PRO_DEAL_MAX_BYTES) {
    return `${file.name} is too large: each file must be under 0.5 MB`;
  }
  return null;
}

/** Every problem of a selection, one message per refused file (or the missing-document one). */
export function proDealFileProblems(files: readonly Pick<File, 'name' | 'size'>[]): string[] {
  if (files.length === 0) return [NO_DOCUMENT];
  return files.map(proDealFileProblem).filter((problem): problem is string => problem !== null);
}
