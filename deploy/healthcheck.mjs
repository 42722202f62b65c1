// The images' health check (HEALTHCHECK, and the Kubernetes examples' exec probes, since a sidecar that listens on
// 127.0.0.1 cannot be probed from the kubelet): `node healthcheck.mjs gateway|scanner`. Exit 0 when the service's
// health route answers 2xx on loopback within two seconds, 1 otherwise. The port is the service's own setting.
/* global fetch, AbortSignal -- Node's own */
const SERVICES = {
  gateway: { port: process.env.GATEWAY_PORT || '8080', path: '/health' },
  scanner: { port: process.env.SCANNER_PORT || '8082', path: '/healthz' },
};
const service = SERVICES[process.argv[2] ?? ''];
if (!service) {
  process.stderr.write('usage: node healthcheck.mjs gateway|scanner\n');
  process.exit(2);
}
try {
  const res = await fetch(`http://127.0.0.1:${service.port}${service.path}`, { signal: AbortSignal.timeout(2000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
