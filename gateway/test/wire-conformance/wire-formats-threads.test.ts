import { describeWireFormats } from './describe-wire-format.js';

// The same contract for every wire format, with the calls on the agents' port served by two threads (AGENT_PORT,
// GATEWAY_THREADS=2): each call on a connection of its own, so the calls of a case land on the main thread's agents'
// app and the request thread's in turn, and each must answer, refuse and record as the other.
describeWireFormats({ gatewayThreads: 2, agentPort: 0, ledgerWriter: 'thread' }, true);
