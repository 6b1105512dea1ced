import type { LoopdeckBridge } from '../../../shared/contract';
import type { Transport } from './types';

/** The desktop transport: the Electron preload's `window.loopdeck`, always connected. */
export function createBridgeTransport(bridge: LoopdeckBridge): Transport {
  return {
    kind: 'bridge',
    invoke: (name, input) => bridge.invoke(name, input),
    on: (event, cb) => bridge.on(event, cb),
    connection: () => 'open',
    onConnection: () => () => {},
    close: () => {},
  };
}
