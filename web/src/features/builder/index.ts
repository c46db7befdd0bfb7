/** The 3D builder: the framed experience and its message bridge. */
export { BuilderFrame } from './builder-frame';
export { createBridge, type Bridge, type BridgeHost, type BridgeMessage } from './bridge';
export { fitSixteenByNine } from './sizing';
