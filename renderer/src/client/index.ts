export { createClient, clientOver, type LoopdeckClient, type ClientEnvironment } from './client';
export { RpcClientError, describeError, type RpcClientErrorCode } from './errors';
export type { ConnectionState, Transport } from './types';
export { reportRendererErrors } from './error-reporter';
