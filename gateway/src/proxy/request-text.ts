import type { EndpointKind } from './endpoints.js';

/** Calls `visit` on every user-supplied text of a request, letting it replace the string (redaction). */
type Visit = (text: string) => string;

function visitContent(holder: Record<string, unknown>, key: string, visit: Visit): void {
  const v = holder[key];
  if (typeof v === 'string') holder[key] = visit(v);
  else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const part = v[i];
      if (typeof part === 'string') v[i] = visit(part);
      else if (part && typeof part === 'object' && typeof (part as Record<string, unknown>)['text'] === 'string') {
        (part as Record<string, unknown>)['text'] = visit((part as Record<string, string>)['text'] as string);
      }
    }
  }
}

/**
 * The texts a request carries, by endpoint: chat messages' content (strings or text parts) and tool-call arguments;
 * the legacy prompt; embedding inputs. Token-id arrays carry no text and are left alone.
 */
export function visitRequestText(kind: EndpointKind, body: Record<string, unknown>, visit: Visit): void {
  if (kind === 'chat') {
    const messages = body['messages'];
    if (!Array.isArray(messages)) return;
    for (const m of messages) {
      if (!m || typeof m !== 'object') continue;
      const msg = m as Record<string, unknown>;
      visitContent(msg, 'content', visit);
      const calls = msg['tool_calls'];
      if (Array.isArray(calls)) {
        for (const c of calls) {
          const fn = (c as Record<string, unknown> | null)?.['function'] as Record<string, unknown> | undefined;
          if (fn && typeof fn['arguments'] === 'string') fn['arguments'] = visit(fn['arguments']);
        }
      }
    }
  } else if (kind === 'completions') {
    visitContent(body, 'prompt', visit);
  } else if (kind === 'embeddings') {
    visitContent(body, 'input', visit);
  }
}

export function requestText(kind: EndpointKind, body: Record<string, unknown>): string {
  const parts: string[] = [];
  visitRequestText(kind, body, (t) => {
    parts.push(t);
    return t;
  });
  return parts.join('\n');
}

/** The answer's texts (non-streamed), same contract: chat message content and tool-call arguments, completion text. */
export function visitAnswerText(kind: EndpointKind, body: Record<string, unknown>, visit: Visit): void {
  const choices = body['choices'];
  if (!Array.isArray(choices)) return;
  for (const c of choices) {
    if (!c || typeof c !== 'object') continue;
    const choice = c as Record<string, unknown>;
    if (kind === 'completions') {
      if (typeof choice['text'] === 'string') choice['text'] = visit(choice['text']);
      continue;
    }
    const msg = choice['message'] as Record<string, unknown> | undefined;
    if (!msg || typeof msg !== 'object') continue;
    if (typeof msg['content'] === 'string') msg['content'] = visit(msg['content']);
    const calls = msg['tool_calls'];
    if (Array.isArray(calls)) {
      for (const tc of calls) {
        const fn = (tc as Record<string, unknown> | null)?.['function'] as Record<string, unknown> | undefined;
        if (fn && typeof fn['arguments'] === 'string') fn['arguments'] = visit(fn['arguments']);
      }
    }
  }
}
