import { startTestGateway, type TestGateway } from './start-test-gateway.js';
import { MockUpstream } from './mock-upstream.js';
import type { GatewayConfig } from '../../src/index.js';

export interface GatewayWithMock {
  t: TestGateway;
  mock: MockUpstream;
}

/** A test gateway whose upstream is a fresh mock provider on loopback (a test file's beforeAll). */
export async function startGatewayWithMock(overrides: Partial<Record<keyof GatewayConfig, string | number | boolean>> = {}): Promise<GatewayWithMock> {
  const mock = await new MockUpstream().start();
  const t = await startTestGateway({ upstreamBaseUrl: mock.url, ...overrides });
  return { t, mock };
}

/** Stops both (a test file's afterAll); tolerates a beforeAll that failed half-way. */
export async function closeGatewayWithMock(g: Partial<GatewayWithMock>): Promise<void> {
  await g.t?.close();
  await g.mock?.close();
}
