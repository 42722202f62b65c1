export { collectSnapshot, COLLECT_DEFAULTS, type CollectOptions } from './collect-snapshot.js';
export { CollectError, type CollectErrorCode } from './collect-error.js';
export { fetchStatic, type StaticFetch, type StaticFetchOptions } from './fetch-static.js';
export { probeTls, type TlsProbeOptions } from './tls-probe.js';
export { probeHttpsRedirect } from './https-redirect-probe.js';
export { probeErrorCode, type ProbeErrorCode } from './probe-error.js';
