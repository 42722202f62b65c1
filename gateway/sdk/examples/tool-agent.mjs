// A tool-using agent governed by aduana: it registers, keeps a heartbeat, and asks the gateway before each tool runs.
//
//   npm run build
//   ADUANA_URL=http://127.0.0.1:8080 ADUANA_TOKEN=$(cat data/bootstrap-admin.token) node gateway/sdk/examples/tool-agent.mjs
import { AduanaClient, AduanaError } from '@aduana/sdk';

const client = new AduanaClient({
  baseUrl: process.env.ADUANA_URL ?? 'http://127.0.0.1:8080',
  token: process.env.ADUANA_TOKEN ?? '',
  agentId: process.env.ADUANA_AGENT_ID ?? 'example-tool-agent',
});

const tools = {
  lookup_order: async ({ id }) => ({ id, status: 'shipped' }),
  run_sql: async ({ query }) => ({ rows: 0, query }),
};

async function runTool(name, args) {
  const decision = await client.process({ type: name, payload: args, sessionId: 'example-session' });
  console.log(`${name}: ${decision.verdict}${decision.rule ? ` (rule ${decision.rule})` : ''} trace ${decision.traceId}`);
  if (!decision.allowed) return null;
  return tools[name](args);
}

try {
  const agent = await client.register({ name: 'Example tool agent', policy_pack: 'FREE_TIER_POLICIES' });
  console.log(`registered ${agent.agent_id}: ${agent.status}`);
  const beats = client.startHeartbeats(Number(process.env.ADUANA_HEARTBEAT_MS ?? 30_000), (err) => console.error('heartbeat failed:', err.message));
  console.log(await runTool('lookup_order', { id: 'A-1001' }));
  // The free tier's content filter refuses destructive SQL: the tool never runs.
  console.log(await runTool('run_sql', { query: 'DROP TABLE customers' }));
  await beats.stop();
} catch (err) {
  if (err instanceof AduanaError) console.error(`gateway refused: ${err.status} ${err.type} ${err.message}`);
  else throw err;
  process.exitCode = 1;
}
