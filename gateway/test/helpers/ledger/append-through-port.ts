import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openGatewayStore } from '../../../src/storage/gateway-store.js';
import { ThreadedLedger } from '../../../src/governance/writer/threaded-ledger.js';
import { DecisionStore } from '../../../src/governance/decisions/decision-store.js';

/**
 * Another thread's ledger, as a request thread has one: it writes through the writer thread on the port it was given,
 * `count` events into `tenant`, and a decision record; then answers the seqs it got.
 */
const { dataDir, port, tenant, count } = workerData as { dataDir: string; port: MessagePort; tenant: string; count: number };
const store = openGatewayStore(dataDir);
const ledger = new ThreadedLedger(store.root, { keyDir: dataDir }, port);
const decisions = new DecisionStore(store, ledger.decisionWrites);
const seqs: number[] = [];
for (let i = 0; i < count; i++) {
  const [link] = await ledger.append(tenant, [{ event_type: 'tool_call', payload: { i, from: 'request thread' }, metadata: { agent_id: 'worker-agent' }, decision: null }]);
  seqs.push(link!.seq);
}
await decisions.record({ decision_id: 'dec_from_thread', tenant_id: tenant, agent_id: 'worker-agent', execution_status: 'ALLOW', risk_score: 0, event_type: 'tool_call', trace_id: 't', created_at: new Date().toISOString(), rule: '', policy_version: 'v1', policies_evaluated: 0, triggered: [], resolution: null });
await ledger.close();
await store.close();
parentPort?.postMessage(seqs);
