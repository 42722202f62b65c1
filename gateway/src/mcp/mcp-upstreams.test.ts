import { describe, expect, it } from 'vitest';
import { parseMcpUpstreams } from './mcp-upstreams.js';

describe('MCP_UPSTREAMS', () => {
  it('refuse_server_requests: the kinds of server request the gateway refuses for that server, as method prefixes', () => {
    const u = parseMcpUpstreams(JSON.stringify({ a: 'http://127.0.0.1:1/mcp', b: { url: 'http://127.0.0.1:2/mcp', refuse_server_requests: ['sampling', 'elicitation', 'sampling', 'roots'] } }));
    expect(u.get('a')?.refusedServerRequests).toEqual([]);
    expect(u.get('b')?.refusedServerRequests).toEqual(['sampling/', 'elicitation/', 'roots/']);
  });

  it('an unknown kind, a value that is not a list, or a field the setting does not have stops the start, naming it', () => {
    const one = (spec: Record<string, unknown>) => () => parseMcpUpstreams(JSON.stringify({ s: { url: 'http://127.0.0.1:1/mcp', ...spec } }));
    expect(one({ refuse_server_requests: ['sampling/createMessage'] })).toThrow('MCP_UPSTREAMS.s.refuse_server_requests: a list of "sampling", "elicitation", "roots"');
    expect(one({ refuse_server_requests: 'sampling' })).toThrow('MCP_UPSTREAMS.s.refuse_server_requests');
    // A misspelt refusal would otherwise pass unnoticed, and refuse nothing.
    expect(one({ refuse_server_request: ['sampling'] })).toThrow('MCP_UPSTREAMS.s: unknown field "refuse_server_request"');
  });
});
