import { Component, type ReactNode } from 'react';
import { RouteErrorPage } from './route-error-page';

interface Props {
  /** A new value (the next page's location) clears the error: the next page gets its chance. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: unknown;
  resetKey: string;
  failed: boolean;
}

/**
 * Renders the error page in place of a subtree that threw while rendering: the page's own
 * boundary sits inside the frame (header and footer stay), the root one around the frame.
 */
export class RouteErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey, failed: false };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error, failed: true };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (props.resetKey === state.resetKey) return null;
    return { resetKey: props.resetKey, error: null, failed: false };
  }

  override render() {
    return this.state.failed ? <RouteErrorPage error={this.state.error} /> : this.props.children;
  }
}
