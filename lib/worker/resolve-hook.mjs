// module.register resolve hook for Node < 22.15 (expose-api.cjs says when): 'superd/worker'
// resolves to superd's worker API when the app cannot resolve it itself.
const API_URL = new URL('./index.cjs', import.meta.url).href;
const NOT_FOUND = new Set(['ERR_MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED']);

export async function resolve(specifier, context, next) {
  if (specifier !== 'superd/worker') return next(specifier, context);
  try {
    return await next(specifier, context);
  } catch (err) {
    if (!NOT_FOUND.has(err?.code)) throw err;
    return { url: API_URL, format: 'commonjs', shortCircuit: true };
  }
}
