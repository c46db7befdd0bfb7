/** The 3D builder: the experience hosted in the page, its wrapper and its message bridge. */
export { BuilderFrame } from './builder-frame';
export { createBridge, type Bridge, type BridgeHost, type BridgeMessage } from './bridge';
export { fitSixteenByNine } from './sizing';
export { createUnityWrapper, WRAPPER_MESSAGES, type UnityInstance, type UnityWrapper } from './unity-wrapper';
