// Which build of the backend this is. In the checkout it is the development marker below; the collection's bundle
// (tools/collection.ts) carries a hash of itself in its place, and so does the collection's bridge, which sends it
// in its run op: the backend refuses a plugin of another build (bridge/session.ts), so that a collection's plugins
// never drive a backend they were not built with.

export const BUILD_ID: string = "calico-encap-build:development";

/** Why a plugin of build `plugin` must not run this backend, or null when it may (a checkout's plugin sends none). */
export function buildMismatch(plugin: string | undefined): string | null {
  if (plugin === undefined || plugin === BUILD_ID) return null;
  return `the action plugin comes from build ${plugin} and this calico-encap backend from build ${BUILD_ID}: they must come from the same build. Reinstall the collection (ansible-galaxy collection install --force with its tarball); its plugins run the backend bundled beside them, and another calico-encap (CALICO_ENCAP_BACKEND, PATH) only when that bundle is missing.`;
}
