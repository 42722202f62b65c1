/**
 * The ~1 KB chat request the proxy benchmarks send (no PII, no secrets, so the common ALLOW path is measured): a
 * system instruction and a user prompt, in OpenAI's chat completions format. The other formats, and the MCP
 * benchmark's tool arguments, carry the same two texts.
 */
export const SYSTEM = 'You are a careful assistant for an account team. Answer briefly, cite only the data you were given, and never invent figures.';
export const USER =
  'Summarise the renewal risk of the accounts below in two sentences, then list the three that need a call first. ' +
  'Accounts: Northwind Traders (renews in 40 days, 3 open tickets, usage down 12 percent), Contoso Pharma (renews in ' +
  '75 days, no tickets, usage flat), Fabrikam Logistics (renews in 20 days, 5 open tickets, two escalations last month), ' +
  'Tailspin Retail (renews in 88 days, 1 ticket, usage up), Wide World Importers (renews in 15 days, 2 tickets, champion ' +
  'left the company), Adventure Works (renews in 60 days, 4 tickets, asked about competitor pricing). Keep the tone ' +
  'neutral and do not promise discounts. Format the list as short bullet points with the account name first.';

/** The chat completions request, whole or streamed; `marker` is appended to the prompt (the mock reads some). */
export function chatBody(stream: boolean, marker = ''): string {
  return JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: USER + marker }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });
}
