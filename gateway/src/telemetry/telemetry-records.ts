/** Telemetry records as the API answers them (docs/telemetry.md). Times are ISO 8601. */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'warning', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogEntry {
  id: string;
  timestamp: string;
  level: LogLevel;
  message: string;
  agentId: string;
  traceId: string;
  attributes: Record<string, unknown>;
}

export interface ErrorEvent {
  id: string;
  issueId: string;
  timestamp: string;
  level: string;
  message: string;
  context: { agentId: string; ruleId: string; traceId: string };
}

export interface ErrorIssue {
  id: string;
  title: string;
  level: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  agentId: string;
}

/** Levels that are also error events (grouped into issues, sent to the error tracker). */
export function isErrorLevel(level: string): boolean {
  return level === 'error' || level === 'fatal';
}
