import { isJsonObject } from '../../core/json.js';
import type { InboundMessage } from '../../core/message.js';
import { REDACTED } from '../../core/redacted.js';
import { isSecretArgumentName } from '../../core/secret-argument-name.js';

/**
 * A `tools/call` request with the values of its secret-named arguments (at any depth of `arguments`)
 * stored as `<redacted>`, which replay matches with any value; undefined when it has none.
 */
export function redactSecretArguments(message: InboundMessage): unknown {
  const value = message.value;
  if (message.sender !== 'client' || !isJsonObject(value) || value.method !== 'tools/call' || !isJsonObject(value.params)) return undefined;
  const args = value.params.arguments;
  if (!isJsonObject(args)) return undefined;
  let changed = false;
  const redact = (node: unknown, depth: number): unknown => {
    if (depth > 64 || node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((item) => redact(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      if (isSecretArgumentName(key) && child !== REDACTED && (typeof child === 'string' || typeof child === 'number')) {
        out[key] = REDACTED;
        changed = true;
      } else out[key] = redact(child, depth + 1);
    }
    return out;
  };
  const redacted = redact(args, 0);
  return changed ? { ...value, params: { ...value.params, arguments: redacted } } : undefined;
}
