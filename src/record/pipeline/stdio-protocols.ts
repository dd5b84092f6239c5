import { UsageError } from '../../core/errors.js';
import type { ChannelHint } from '../../protocols/protocol.js';
import { protocolsOver, type ProtocolIdOver } from '../../protocols/catalog.js';
import { checkProtocolOption } from '../../judge/protocol-option.js';

/** Protocols spoken over a child's stdio (those whose module runs over it); `auto` sniffs the first lines. */
export const STDIO_PROTOCOLS = protocolsOver('stdio');
export type StdioProtocol = ProtocolIdOver<'stdio'>;

/** The channel hint of a stdio exchange whose first lines were recognised as `protocol`, by `evidence`. */
export function stdioHint(protocol: StdioProtocol, evidence: string): ChannelHint {
  return { transport: 'stdio', sniffed: { protocol, evidence } };
}

/**
 * A stdio recorder's protocol as given (`--protocol`, `startStdioRecorder({protocol})`): `auto` or
 * one of STDIO_PROTOCOLS; an id no module knows is ProtocolUnknownError, one that does not run over
 * stdio a UsageError. `where` names the option.
 */
export function parseStdioProtocol(value: string | undefined, where: string): StdioProtocol | 'auto' {
  if (value === undefined || value === 'auto') return 'auto';
  checkProtocolOption(value, where);
  if (!(STDIO_PROTOCOLS as readonly string[]).includes(value)) throw new UsageError(`${where} '${value}' does not run over stdio; use auto, ${STDIO_PROTOCOLS.slice(0, -1).join(', ')} or ${STDIO_PROTOCOLS.at(-1)}`);
  return value as StdioProtocol;
}
