import { registerHooks } from 'node:module';

/**
 * Entry of the evaluation worker thread. Built, it loads the compiled worker at once. Run from the TypeScript sources
 * (tests), Node strips the types itself and this maps the sources' `.js` import specifiers to their `.ts` files.
 */
const fromSources = import.meta.url.endsWith('.ts');
if (fromSources) {
  registerHooks({
    resolve(specifier, context, next) {
      try {
        return next(specifier, context);
      } catch (err) {
        if (specifier.startsWith('.') && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context);
        throw err;
      }
    },
  });
}
await import(new URL(fromSources ? './eval-worker-main.ts' : './eval-worker-main.js', import.meta.url).href);
