/**
 * Node's NODE_MODULE_VERSION of each Node.js release line (doc/abi_version_registry.json in the
 * Node repository): a native module built for one cannot load in another.
 */
const NODE_BY_MODULE_VERSION: Readonly<Record<number, number>> = { 93: 16, 102: 17, 108: 18, 111: 19, 115: 20, 120: 21, 127: 22, 131: 23, 137: 24, 141: 25 };

const FIX = 'run `npm rebuild better-sqlite3` with the Node.js that runs agent-proxy';

/**
 * One line for a better-sqlite3 whose native part cannot load, instead of Node's five-line message:
 * which Node.js it was built for, which one this is, and the fix. Undefined for any other error.
 */
export function nativeModuleProblem(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : '';
  const abi = /NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (abi) {
    const built = Number(abi[1]);
    const major = NODE_BY_MODULE_VERSION[built];
    const builtFor = major === undefined ? `another Node.js (NODE_MODULE_VERSION ${built})` : `Node.js ${major} (NODE_MODULE_VERSION ${built})`;
    return `better-sqlite3 was built for ${builtFor}, but this is Node.js ${process.versions.node} (NODE_MODULE_VERSION ${abi[2]}): ${FIX}`;
  }
  if ((error as { code?: unknown } | null)?.code === 'ERR_DLOPEN_FAILED' || message.startsWith('Could not locate the bindings file')) {
    return `better-sqlite3's native module cannot be loaded (${message.split('\n')[0].trim()}): ${FIX}`;
  }
  return undefined;
}
