// Resolve hook for running this repo's TypeScript sources directly with Node's --experimental-transform-types: the
// sources import siblings with `.js` suffixes (what tsc emits), so a missing `./x.js` is retried as `./x.ts`.
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('file:');
    if (relative && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context);
    throw err;
  }
}
