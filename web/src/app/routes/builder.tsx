import { PlaceholderPage } from './placeholder-page';

export function Component() {
  return <PlaceholderPage title="3D Builder" />;
}
