import { useParams } from 'react-router';
import { PlaceholderPage } from './placeholder-page';

export type CopyId = 'terms' | 'privacy';

/** `/copy/<copyId>`: terms or privacy; any other value falls back to terms (spec). */
export function resolveCopyId(value: string | undefined): CopyId {
  return value?.toLowerCase() === 'privacy' ? 'privacy' : 'terms';
}

const titles: Record<CopyId, string> = { terms: 'Terms of Service', privacy: 'Privacy Policy' };

export function Component() {
  const copyId = resolveCopyId(useParams().copyId);
  return <PlaceholderPage title={titles[copyId]} />;
}
