/**
 * The wrapper around the embedded 3D build's instance (the object a Unity WebGL loader's
 * `createUnityInstance` resolves to). Every call is refused, with the spec's message for it
 * (account spec §8, '3D wrapper'), while there is no instance: before it has loaded, after it
 * quit, or when loading failed.
 */

/** What the page uses of a loaded build's instance. */
export interface UnityInstance {
  SendMessage: (gameObject: string, method: string, value?: string | number) => void;
  SetFullscreen: (fullscreen: 0 | 1) => void;
  Quit: () => Promise<void>;
  Module?: { canvas?: HTMLCanvasElement };
}

/** The loader's entry point, as a Unity WebGL loader script defines it on `window`. */
export type CreateUnityInstance = (
  canvas: HTMLCanvasElement,
  config: UnityConfig,
  onProgress?: (progress: number) => void,
) => Promise<UnityInstance>;

export interface UnityConfig {
  dataUrl: string;
  frameworkUrl: string;
  codeUrl: string;
  productName?: string;
}

/** The wrapper's messages (spec: 'messages for no instance, cannot set fullscreen, pointer lock, send message, quit, screenshot when not instantiated'). */
export const WRAPPER_MESSAGES = {
  noInstance: 'No Unity Instance found.',
  fullscreen: 'Unable to Set Fullscreen while Unity is not Instantiated.',
  pointerLock: 'Unable to Request Pointer Lock while Unity is not Instantiated or the Canvas is not found.',
  sendMessage: 'Unable to Send Message while Unity is not Instantiated.',
  quit: 'Unable to Quit Unity while Unity is not Instantiated.',
  screenshot: 'Unable to Take Screenshot while Unity is not Instantiated or Canvas is not found.',
} as const;

export interface UnityWrapper {
  /** The loaded instance and its canvas; `null` clears it (unmount, failure). */
  attach: (instance: UnityInstance | null, canvas: HTMLCanvasElement | null) => void;
  readonly instance: UnityInstance | null;
  /** Whether an instance is attached (asks without the 'no instance' message). */
  readonly loaded: boolean;
  /** False (with the message warned) when there is no instance. */
  sendMessage: (gameObject: string, method: string, value?: string | number) => boolean;
  requestFullscreen: (fullscreen: boolean) => boolean;
  requestPointerLock: () => boolean;
  /** The canvas as a data URL; null (with the message warned) when there is no instance. */
  takeScreenshot: (type?: string, quality?: number) => string | null;
  /** Quits the build and lets go of it; false (with the message warned) when there is none. */
  quit: () => Promise<boolean>;
}

export function createUnityWrapper(warn: (message: string) => void): UnityWrapper {
  let instance: UnityInstance | null = null;
  let canvas: HTMLCanvasElement | null = null;

  return {
    attach: (next, nextCanvas) => {
      instance = next;
      canvas = nextCanvas;
    },
    get instance() {
      if (!instance) warn(WRAPPER_MESSAGES.noInstance);
      return instance;
    },
    get loaded() {
      return instance !== null;
    },
    sendMessage: (gameObject, method, value) => {
      if (!instance) {
        warn(WRAPPER_MESSAGES.sendMessage);
        return false;
      }
      instance.SendMessage(gameObject, method, value);
      return true;
    },
    requestFullscreen: (fullscreen) => {
      if (!instance) {
        warn(WRAPPER_MESSAGES.fullscreen);
        return false;
      }
      instance.SetFullscreen(fullscreen ? 1 : 0);
      return true;
    },
    requestPointerLock: () => {
      if (!instance || !canvas) {
        warn(WRAPPER_MESSAGES.pointerLock);
        return false;
      }
      void canvas.requestPointerLock();
      return true;
    },
    takeScreenshot: (type = 'image/jpeg', quality) => {
      if (!instance || !canvas) {
        warn(WRAPPER_MESSAGES.screenshot);
        return null;
      }
      return canvas.toDataURL(type, quality);
    },
    quit: async () => {
      if (!instance) {
        warn(WRAPPER_MESSAGES.quit);
        return false;
      }
      const quitting = instance;
      instance = null;
      await quitting.Quit();
      return true;
    },
  };
}
