import { errorToastText } from '../../lib/api';
import { prefersReducedMotion } from '../../lib/media';
import { createStore } from '../../lib/store';

export type NotificationType = 'success' | 'warning' | 'error';

export interface Notification {
  message: string;
  type: NotificationType;
}

/** Notification auto-dismiss (spec constants). */
export const NOTIFICATION_TIMEOUT_MS = 30_000;

export const notificationStore = createStore<Notification | null>(null);

/** Shows a notification in the banner at the top of the page, and scrolls there (spec). */
export function notify(notification: Notification): void {
  // a fresh object, so the same message twice restarts the auto-dismiss timer
  notificationStore.set({ message: notification.message, type: notification.type });
  window.scrollTo({ top: 0, behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
}

export function clearNotification(): void {
  notificationStore.set(null);
}

/** The shared network-error handler: `Error: <server message, else title, else the error's message>`. */
export function notifyError(error: unknown): void {
  notify({ message: errorToastText(error), type: 'error' });
}

/** A notification carried in router navigation state (`navigate(to, {state: {notification}})`). */
export interface NotificationState {
  notification?: Notification;
}

export function notificationFromState(state: unknown): Notification | null {
  if (typeof state !== 'object' || state === null || !('notification' in state)) return null;
  const candidate: unknown = state.notification;
  if (typeof candidate !== 'object' || candidate === null) return null;
  const { message, type } = candidate as Record<string, unknown>;
  if (typeof message !== 'string' || message === '') return null;
  return { message, type: type === 'error' || type === 'warning' ? type : 'success' };
}
