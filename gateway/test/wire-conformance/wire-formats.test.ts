import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';
import { WireMock } from '../helpers/wire-mock.js';
import { describeWireFormat } from './describe-wire-format.js';
import { WIRE_CASES } from './wire-cases.js';

// Every wire format the proxy speaks runs the same contract (describe-wire-format.ts), against one gateway whose
// providers are all one table-driven mock. PROXY_BODY_LIMIT is 4 MiB here, so each case's 5 MB prompt is past it.

let t: TestGateway;
let mock: WireMock;

beforeAll(async () => {
  mock = await new WireMock().start();
  t = await startTestGateway({
    upstreamBaseUrl: `${mock.url}/v1`,
    upstreamAnthropicBaseUrl: mock.url,
    upstreamAzureBaseUrl: mock.url,
    upstreamGeminiBaseUrl: mock.url,
    proxyBodyLimit: 4 * 1024 * 1024,
  });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

for (const w of WIRE_CASES) describeWireFormat(w, () => ({ t, mock }));
