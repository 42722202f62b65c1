import type { ProxyContext } from '../proxy-context.js';
import type { RoutedTarget } from './route-plan.js';

/** The endpoints OpenAI and Azure OpenAI both serve, in the same body: where each is under a base URL. */
const SHARED: Readonly<Record<string, string>> = Object.freeze({
  chat: '/chat/completions',
  embeddings: '/embeddings',
  'azure.chat': '/chat/completions',
  'azure.embeddings': '/embeddings',
});

/**
 * Where a routed call goes under a target's base URL, or null when the target cannot serve it: a target of the call's
 * own provider takes the call's path (an Azure target's `deployments` renaming the deployment); across OpenAI and Azure
 * OpenAI, chat completions and embeddings only (Azure's path names the deployment and an api-version).
 */
export function routedPath(c: ProxyContext, target: RoutedTarget, model: string): string | null {
  const provider = c.endpoint.wire.provider;
  const own = c.upstreamPath || c.endpoint.upstreamPath;
  if (target.provider === provider) {
    // Gemini names the model in the path, not the body: the route's model goes there.
    if (provider === 'gemini') return own.replace(/\/models\/[^/:]+:/, `/models/${encodeURIComponent(model)}:`);
    const deployment = provider === 'azure' ? target.deployments[model] : undefined;
    return deployment === undefined ? own : own.replace(/^\/openai\/deployments\/[^/]+/, `/openai/deployments/${encodeURIComponent(deployment)}`);
  }
  const suffix = SHARED[c.endpoint.kind];
  if (suffix === undefined) return null;
  if (target.provider === 'azure') return `/openai/deployments/${encodeURIComponent(target.deployments[model] ?? model)}${suffix}?api-version=${encodeURIComponent(target.apiVersion)}`;
  if (target.provider === 'openai') return suffix;
  return null;
}
