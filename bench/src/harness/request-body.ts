/**
 * A ~1 KB action of the kind an agent sends to /v1/decide: a tool call with a natural-language payload (no PII, no
 * secrets, so the common ALLOW path is what is measured).
 */
export function decideBody(agentId: string): Record<string, unknown> {
  return {
    agent_id: agentId,
    action: {
      type: 'tool_call',
      target: 'https://crm.internal.example/api/v2/customers/search',
      method: 'POST',
      payload: {
        tool: 'search_customers',
        query: 'customers in the south region whose renewal is due next quarter and who opened more than two support tickets',
        filters: { region: 'south', renewal_window_days: 90, min_tickets: 3, status: ['active', 'trial'] },
        reasoning:
          'The account manager asked for a list of at-risk renewals so that the team can plan outreach before the quarter ' +
          'closes. I will search the CRM for customers matching these criteria, then summarise the results by segment and ' +
          'suggest which accounts to contact first based on contract value and the sentiment of recent conversations. ' +
          'No records will be modified; this is a read-only query against the reporting replica.',
        page: 1,
        page_size: 50,
      },
    },
    context: { session_id: 'session-bench-001', risk_budget: 1000 },
  };
}
