/** @aduana/sdk: an agent's client for an aduana gateway (register, heartbeats, `process()` before each tool call). */
export { AduanaClient } from './client.js';
export { AduanaError } from './errors.js';
export type { HeartbeatLoop } from './heartbeat-loop.js';
export type { Agent, AgentStatus, ClientOptions, Decision, Heartbeat, PolicyPack, RegisterOptions, ToolCall, Verdict } from './types.js';
