import { registerHooks } from 'node:module';

/**
 * Entry of every worker thread startModuleWorker starts: it imports the module whose URL is the thread's last
 * argument. Built, that is a compiled `.js` file and this only imports it. Run from the TypeScript sources (tests),
 * Node strips the types itself and this maps the sources' `.js` import specifiers to their `.ts` files. It imports
 * nothing of the repo's own before the hook is in place, so it must stay self-contained.
 */
const main = process.argv.at(-1);
if (!main?.startsWith('file:')) throw new Error('worker-entry: the worker module URL must be the last argument');
const fromSources = import.meta.url.endsWith('.ts');
if (fromSources) {
  registerHooks({
    resolve(specifier, context, next) {
      try {
        return next(specifier, context);
      } catch (err) {
        if ((specifier.startsWith('.') || specifier.startsWith('file:')) && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context);
        throw err;
      }
    },
  });
}
await import(main);
