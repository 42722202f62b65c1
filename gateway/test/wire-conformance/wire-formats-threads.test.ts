import { afterAll, beforeAll, beforeEach } from 'vitest';
import { Client } from 'undici';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';
import { WireMock } from '../helpers/wire-mock.js';
import { describeWireFormat } from './describe-wire-format.js';
import { WIRE_CASES } from './wire-cases.js';

// The same contract for every wire format (describe-wire-format.ts), with the calls on the agents' port served by two
// threads (AGENT_PORT, GATEWAY_THREADS=2): each call on a connection of its own, so the calls of a case land on the
// main thread's agents' app and the request thread's in turn, and each must answer, refuse and record as the other.

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
    gatewayThreads: 2,
    agentPort: 0,
    ledgerWriter: 'thread',
  });
});
afterAll(async () => {
  await t?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

for (const w of WIRE_CASES) describeWireFormat(w, () => ({ t, mock, connection: () => new Client(t.agentsUrl) }));
