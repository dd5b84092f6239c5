import { secretNameKey } from './redacted.js';

/**
 * Argument names of a tool call whose values are taken for secrets (compared as secret names are:
 * lower case, without `-` and `_`): an API key, a token, a password handed to a tool. Broader than the
 * names redacted in every message (`token` is not one there: streaming APIs use it for text), since
 * a tool argument is never generated text. In core because an MCP argument may also travel in a
 * header (`Mcp-Param-{Name}`), which is redacted where headers are, before any protocol is known.
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
