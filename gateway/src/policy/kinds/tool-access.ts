import { globAccessRule, GLOB_LIST_SCHEMA, requireAllowOrDeny } from '../tool-globs.js';
import type { PolicyTypeModule } from './kind-module.js';

export interface ToolAccessRules {
  /** Tool-name globs: a tool matching none of them triggers. */
  allow?: string[];
  /** Tool-name globs: a tool matching one of them triggers. */
  deny?: string[];
  /** MCP servers (names as in MCP_UPSTREAMS) whose tools this policy judges; absent: every tool, with or without a server. */
  servers?: string[];
  action: 'DENY' | 'REQUIRE_APPROVAL';
}

/** Which tools an agent may use, by name (and MCP server): on `/v1/decide` tool calls, tools named in answers, MCP. */
export const toolAccess: PolicyTypeModule<'tool_access'> = {
  type: 'tool_access',
  rulesSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['action'],
    properties: {
      allow: GLOB_LIST_SCHEMA,
      deny: GLOB_LIST_SCHEMA,
      // MCP_UPSTREAMS names: letters, digits, _ and -, at most 64.
      servers: { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
      action: { type: 'string', enum: ['DENY', 'REQUIRE_APPROVAL'] },
    },
  },
  pack: null,
  checkRules(rules) {
    requireAllowOrDeny('tool_access', rules);
  },
  compile(p, parts) {
    const rule = { ...globAccessRule(p), servers: p.rules.servers ? new Set(p.rules.servers) : null };
    // A tool called, and a tool listed or called by an answer: one rule judges both (a scope's direction may split them).
    parts.tools.push(rule);
    parts.toolsOut.push(rule);
  },
};
