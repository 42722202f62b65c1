/**
 * Disk per ledger entry (`npm run bench:ledger-disk`): where the bytes of a data directory go after a sustained run.
 *
 * Without arguments, three phases, each against a fresh `aduana gateway` (its own process, RUNTIME_PAID_POLICIES):
 * proxied chat calls (32 connections, ~1 KB prompts, the mock provider in its own process), POST /v1/decide
 * (16 connections, ~1 KB actions) and batched event ingest (batches of 100). After each, the gateway is stopped (it
 * flushes) and its data directory is read: every named LMDB database's keys, values and pages, and each ledger
 * record split into header, Merkle subtree roots and canonical text. Bytes per ledger entry are the data directory's
 * used pages over the entries the phase wrote.
 *
 *   --data-dir DIR      only report an existing data directory (the gateway stopped or running)
 *   --duration S        seconds of load per phase (default 20)
 *   --keep              keep each phase's data directory (its path is printed) for a closer look
 *   --compression C     run the gateways with LEDGER_COMPRESSION=C (proxy, the default; all; off)
 *   --compress          the same as --compression all
 *   --phase P           run only phase P (proxy, decide or events; repeatable; default: all three)
 */
import { parseArgs } from 'node:util';
import { spawnMockProvider } from './harness/spawn-mock-provider.js';
import { spawnGateway, type SpawnedGateway } from './harness/spawn-gateway.js';
import { benchTenant } from './harness/bench-tenant.js';
import { runLoad } from './harness/load.js';
import { decideBody } from './harness/request-body.js';
import { fmt, table } from './harness/micro-bench.js';
import { writeResults } from './harness/results-file.js';
import { reportDataDir, type DataDirReport } from './harness/ledger-disk-report.js';

const { values: opt } = parseArgs({ options: { 'data-dir': { type: 'string' }, duration: { type: 'string', default: '20' }, keep: { type: 'boolean', default: false }, compress: { type: 'boolean', default: false }, compression: { type: 'string' }, phase: { type: 'string', multiple: true } } });
const COMPRESSION = opt.compress ? 'all' : (opt.compression ?? null);
const DURATION = Number(opt.duration);
const PHASES = new Set(opt.phase?.length ? opt.phase : ['proxy', 'decide', 'events']);
for (const p of PHASES) if (!['proxy', 'decide', 'events'].includes(p)) throw new Error(`--phase: proxy, decide or events, not ${p}`);

const CHAT = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a careful assistant for an account team. Answer briefly, cite only the data you were given.' },
    { role: 'user', content: `Summarise the renewal risk of these accounts in two sentences and list the three that need a call first. ${'Northwind Traders renews in 40 days with 3 open tickets and usage down 12 percent. '.repeat(11)}` },
  ],
});

function print(title: string, r: DataDirReport): void {
  const per = (b: number) => (r.ledgerEntries ? fmt(b / r.ledgerEntries, 0) : '-');
  console.log(`\n${title}: ${r.ledgerEntries} ledger entries; data.mdb ${fmt(r.dataMdbBytes / 2 ** 20, 1)} MiB, pages in use ${fmt(r.usedBytes / 2 ** 20, 1)} MiB = ${per(r.usedBytes)} B per ledger entry`);
  console.log(
    table(
      ['database', 'entries', 'key B', 'value B', 'pages B', 'pages B per ledger entry'],
      r.dbs.filter((d) => d.entries > 0).map((d) => [d.name, d.entries, d.keyBytes, d.valueBytes, d.pageBytes, per(d.pageBytes)]),
    ),
  );
  const other = r.usedBytes - r.dbs.reduce((a, d) => a + d.pageBytes, 0);
  console.log(`free-list, catalogue and pages not yet reused: ${other} B (${per(other)} per ledger entry)`);
  console.log(
    table(
      ['ledger record kind', 'records', 'header B', 'Merkle roots B', 'canonical text B', 'key B', 'mean record B', 'mean stored B'],
      r.ledgerKinds.map((k) => [k.eventType, k.records, k.headerBytes, k.merkleBytes, k.canonicalBytes, k.keyBytes, fmt((k.headerBytes + k.merkleBytes + k.canonicalBytes) / k.records, 0), fmt(k.storedBytes / k.records, 0)]),
    ),
  );
}

async function phase(name: string, run: (gw: SpawnedGateway, headers: Record<string, string>) => Promise<void>, env: Record<string, string> = {}): Promise<DataDirReport> {
  const gw = await spawnGateway({ ...env, ...(COMPRESSION !== null ? { LEDGER_COMPRESSION: COMPRESSION } : {}) });
  try {
    const token = await benchTenant(gw);
    await run(gw, { authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  } finally {
    await gw.stop(true);
  }
  const report = reportDataDir(gw.dataDir);
  print(name, report);
  if (opt.keep) console.log(`data directory kept: ${gw.dataDir}`);
  else (await import('node:fs')).rmSync(gw.dataDir, { recursive: true, force: true });
  return report;
}

async function main(): Promise<void> {
  if (opt['data-dir']) {
    print(opt['data-dir'], reportDataDir(opt['data-dir']));
    return;
  }
  const mock = await spawnMockProvider();
  const results: Record<string, DataDirReport> = {};
  try {
    if (PHASES.has('proxy')) results.proxy = await phase(
      `Proxied chat calls (${DURATION} s, 32 connections)`,
      async (gw, headers) => {
        const r = await runLoad({ url: `${gw.agentsUrl}/v1/proxy/chat/completions`, method: 'POST', headers, bodies: [CHAT], connections: 32, durationS: DURATION, rotateHeader: { name: 'x-svc-agent-id', prefix: 'bench-agent-', count: 4096 } });
        console.log(`\nproxy: ${Math.round(r.reqPerSec * DURATION)} calls, non-2xx ${r.non2xx}`);
      },
      { UPSTREAM_BASE_URL: mock.url, UPSTREAM_API_KEY: 'sk-bench' },
    );
    if (PHASES.has('decide')) results.decide = await phase(`POST /v1/decide (${DURATION} s, 16 connections)`, async (gw, headers) => {
      const bodies = Array.from({ length: 64 }, (_, i) => JSON.stringify(decideBody(`bench-agent-${i}`)));
      const r = await runLoad({ url: `${gw.agentsUrl}/v1/decide`, method: 'POST', headers, bodies, connections: 16, durationS: DURATION });
      console.log(`\ndecide: ${Math.round(r.reqPerSec * DURATION)} decisions, non-2xx ${r.non2xx}`);
    });
    if (PHASES.has('events')) results.events = await phase(`Batched event ingest (${DURATION} s, batches of 100, 8 connections)`, async (gw, headers) => {
      const batch = JSON.stringify({
        events: Array.from({ length: 100 }, (_, i) => ({ event_type: 'tool.invoked', payload: { tool: 'search_customers', step: i, args: { region: 'south', page: 1 } }, metadata: { agent_id: `agent-${i & 63}`, session_id: 'bench' } })),
      });
      const r = await runLoad({ url: `${gw.agentsUrl}/v1/events/ingest/batch`, method: 'POST', headers, bodies: [batch], connections: 8, durationS: DURATION });
      console.log(`\nevents: ~${Math.round(r.reqPerSec * DURATION * 100)} events, non-2xx ${r.non2xx}`);
    });
  } finally {
    mock.stop();
  }
  console.log(`\nresults: ${writeResults(COMPRESSION === null || COMPRESSION === 'proxy' ? 'ledger-disk' : `ledger-disk-${COMPRESSION === 'all' ? 'compressed' : COMPRESSION}`, results)}`);
}

await main();
