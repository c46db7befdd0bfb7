import { PageMeta } from '../../features/content/components/page-meta';

/** A page whose feature work has not landed yet: its name, as the page heading. */
export function PlaceholderPage({ title }: { title: string }) {
  return (
    <div className="page page--placeholder">
      <PageMeta title={title} />
      <h1>{title}</h1>
    </div>
  );
}
