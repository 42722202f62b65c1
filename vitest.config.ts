import { defineConfig } from 'vitest/config';

// Tests import the workspace packages' TypeScript sources through the `source` export condition: no build needed
// to run them, and a stale dist/ can never be what a test exercises.
const conditions = ['source', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['node'] } },
  test: {
    include: ['{shared,gateway,scanner,bench}/{src,test}/**/*.test.ts', 'scripts/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention to the server-based tests.
    maxWorkers: 2,
    // A dependency that publishes its TypeScript under the same `source` condition (eventsource-parser, under the
    // Vercel AI SDK) is transformed by Vitest like ours, with the packages that import it: Node does not strip types
    // under node_modules.
    server: { deps: { inline: ['eventsource-parser', 'eventsource', 'ai', /[\\/]@ai-sdk[\\/]/, /[\\/]@modelcontextprotocol[\\/]/] } },
  },
});
