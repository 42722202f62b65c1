import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from './helpers/start-test-gateway.js';

// Probes written for the scanner (`/healthz`, Kubernetes' habit) and for the gateway (`/health`) both find either of
// the gateway's ports alive.
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t?.close();
});

describe('the health routes', () => {
  for (const port of ['api', 'auth'] as const) {
    it(`the ${port} port answers GET /health and GET /healthz alike, without a token`, async () => {
      const base = port === 'api' ? t.url : t.authUrl;
      const health = await call(base, 'GET', '/health');
      const healthz = await call(base, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect(healthz.status).toBe(200);
      expect(healthz.body).toEqual(health.body);
    });
  }
});
