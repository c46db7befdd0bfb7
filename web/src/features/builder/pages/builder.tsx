import { BuilderFrame } from '../builder-frame';
import { PageMeta } from '../../content';

export function BuilderPage() {
  return (
    <div className="page page--builder">
      <PageMeta />
      <h1 className="visually-hidden">3D Builder</h1>
      <BuilderFrame />
    </div>
  );
}
