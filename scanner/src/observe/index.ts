export { observePage, type ObserveDeps } from './observe-page.js';
export { BrowserHost, type BrowserHostOptions } from './browser-host.js';
export { GuardProxy, type GuardProxyOptions, type RefusedRequest } from './guard-proxy.js';
export type { Observation } from './observation-types.js';
export { observeDepsOf } from './observe-deps.js';
