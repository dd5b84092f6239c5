import type { Sender } from '../../core/message.js';
import { isJsonObject } from '../../core/json.js';

/**
 * The capability a request needs its receiver to have declared in initialization, as a path into
 * the receiver's capabilities (`['resources', 'subscribe']`), by who sends it. Requests not listed
 * (ping, initialize, methods of no capability) need none.
 */
const NEEDED: Record<Sender, ReadonlyMap<string, readonly string[]>> = {
  client: new Map([
    ['tools/list', ['tools']],
    ['tools/call', ['tools']],
    ['prompts/list', ['prompts']],
    ['prompts/get', ['prompts']],
    ['resources/list', ['resources']],
    ['resources/templates/list', ['resources']],
    ['resources/read', ['resources']],
    ['resources/subscribe', ['resources', 'subscribe']],
    ['resources/unsubscribe', ['resources', 'subscribe']],
    ['logging/setLevel', ['logging']],
    ['completion/complete', ['completions']],
    ['tasks/get', ['tasks']],
    ['tasks/result', ['tasks']],
    ['tasks/list', ['tasks', 'list']],
    ['tasks/cancel', ['tasks', 'cancel']],
  ]),
  server: new Map([
    ['sampling/createMessage', ['sampling']],
    ['roots/list', ['roots']],
    ['elicitation/create', ['elicitation']],
    ['tasks/get', ['tasks']],
    ['tasks/result', ['tasks']],
    ['tasks/list', ['tasks', 'list']],
    ['tasks/cancel', ['tasks', 'cancel']],
  ]),
};

/** The capability `method` sent by `sender` needs and `capabilities` (the receiver's) lacks, as `resources.subscribe`; undefined when none is missing. */
export function missingCapability(sender: Sender, method: string, capabilities: unknown): string | undefined {
  const path = NEEDED[sender].get(method);
  if (path === undefined) return undefined;
  let node: unknown = capabilities;
  for (const key of path) {
    if (!isJsonObject(node) || !(key in node)) return path.join('.');
    node = node[key];
  }
  // `"subscribe": false` declares it absent; an object or true declares it.
  return node === false || node === null || node === undefined ? path.join('.') : undefined;
}
