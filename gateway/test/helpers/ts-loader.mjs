// Resolve hook for running this repo's TypeScript sources directly with Node's --experimental-transform-types: the
// sources import siblings with `.js` suffixes (what tsc emits), so a missing `./x.js` is retried as `./x.ts`. A
// dependency that publishes its TypeScript under the same `source` condition (eventsource-parser) is resolved without
// it: Node does not strip types under node_modules.
export async function resolve(specifier, context, next) {
  let resolved;
  try {
    resolved = await next(specifier, context);
  } catch (err) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('file:');
    if (relative && specifier.endsWith('.js')) return next(`${specifier.slice(0, -3)}.ts`, context);
    throw err;
  }
  if (resolved.url.includes('/node_modules/') && resolved.url.endsWith('.ts')) {
    return next(specifier, { ...context, conditions: context.conditions.filter((c) => c !== 'source') });
  }
  return resolved;
}
