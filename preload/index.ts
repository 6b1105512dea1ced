// The preload: runs sandboxed, before the renderer, with contextIsolation on. It exposes exactly
// `window.loopdeck = { invoke, on }` and nothing else — never ipcRenderer itself, whose `send`,
// `sendSync` and `on` would let a compromised page reach any channel.
import { contextBridge, ipcRenderer } from 'electron';
import { createIpcBridge } from '../shared/ipc-bridge';

const bridge = createIpcBridge(ipcRenderer);

contextBridge.exposeInMainWorld('loopdeck', {
  invoke: (name: string, input: unknown) => bridge.invoke(name, input),
  on: (event: string, cb: (payload: unknown) => void) => bridge.on(event, cb),
});
