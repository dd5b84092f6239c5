import { secretNameKey } from './redacted.js';

/**
 * Argument names of a tool call whose values are taken for secrets (compared as secret names are:
 * lower case, without `-` and `_`): an API key, a token, a password handed to a tool. Broader than the
 * names redacted in every message (`token` is not one there: streaming APIs use it for text), since
 * a tool argument is never generated text. In core because an MCP argument may also travel in a
 * header (`Mcp-Param-{Name}`), which is redacted where headers are, before any protocol is known.
 */
const SECRET_PARTS = ['token', 'secret', 'password', 'passwd', 'apikey', 'credential', 'authorization', 'bearer', 'privatekey', 'cookie'];

export function isSecretArgumentName(name: string): boolean {
  const key = secretNameKey(name);
  return SECRET_PARTS.some((part) => key.includes(part));
}
