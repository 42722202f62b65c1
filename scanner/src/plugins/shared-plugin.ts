import type { FastifyPluginAsync } from 'fastify';

/**
 * Marks a plugin as not encapsulated, so what it decorates or installs is visible to its siblings: what the
 * fastify-plugin package does, with the two symbols Fastify reads, without a dependency for ten lines.
 */
export function sharedPlugin<O extends Record<string, unknown>>(name: string, plugin: FastifyPluginAsync<O>): FastifyPluginAsync<O> {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: name });
}
