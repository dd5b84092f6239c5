import { isJsonObject } from '../../core/json.js';
import type { InboundMessage } from '../../core/message.js';
import { REDACTED, secretNameKey } from '../../core/redacted.js';

/**
 * Argument names of a tool call whose values are taken for secrets (compared as secret names are:
 * lower case, without `-` and `_`): an API key, a token, a password handed to a tool. Broader than the
 * names redacted in every message (`token` is not one there: streaming APIs use it for text), since
 * a tool argument is never generated text.
 */
const SECRET_PARTS = ['secret', 'password', 'passwd', 'apikey', 'credential', 'authorization', 'bearer', 'privatekey', 'cookie'];

/**
 * A name with `token` in it is a secret unless it counts or measures tokens (`maxTokens`,
 * `max_output_tokens`, `tokenCount`) or is a page cursor the server handed out (`pageToken`,
 * `nextToken`): storing those redacted would change what the client sent for no secret, and redrive
 * could not send it again.
 */
const TOKEN_NOT_SECRET = ['tokens', 'tokenizer', 'tokencount', 'tokenlimit', 'tokenbudget', 'tokenusage', 'pagetoken', 'nexttoken', 'continuationtoken', 'synctoken'];

export function isSecretArgumentName(name: string): boolean {
  const key = secretNameKey(name);
  if (key.includes('token') && !TOKEN_NOT_SECRET.some((part) => key.includes(part))) return true;
  return SECRET_PARTS.some((part) => key.includes(part));
}

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
