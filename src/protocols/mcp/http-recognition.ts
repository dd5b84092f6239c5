import { headerValue } from '../../core/header-value.js';
import { isJsonObject } from '../../core/json.js';
import { classifyJsonRpc } from '../json-rpc/json-rpc-message.js';
import type { ChannelHint } from '../protocol.js';
import { mcpMethodOf } from './mcp-methods.js';

/** The headers Streamable HTTP adds to a request once a session exists (or, 2026-07-28, to every request). */
export const MCP_SESSION_HEADER = 'mcp-session-id';
export const MCP_VERSION_HEADER = 'mcp-protocol-version';
export const MCP_METHOD_HEADER = 'mcp-method';

/**
 * What makes an HTTP exchange MCP's, or undefined: a POSTed JSON-RPC message (or batch) calling an
 * MCP method, or a JSON-RPC message sent with MCP's own request headers (a client's answer to a
 * server's request, POSTed with `Mcp-Session-Id` or `MCP-Protocol-Version`); a GET (the standalone
 * stream) or DELETE (the session's end) carrying `Mcp-Session-Id`; the older HTTP+SSE transport's
 * GET stream, by its first event, `endpoint`, naming the URL (with its `sessionId`) the client
 * POSTs to (or, in a file, by its InitializeResult). A JSON-RPC POST with neither an MCP method nor
 * an MCP header is plain JSON-RPC, and not claimed.
 */
export function mcpHttpEvidence(hint: ChannelHint): string | undefined {
  if (hint.transport !== 'http' && hint.transport !== 'sse') return undefined;
  const { requestHeaders: headers } = hint;
  const session = headerValue(headers, MCP_SESSION_HEADER) !== undefined;
  if (hint.method === 'GET' && hint.firstEvent !== undefined && endpointSessionOf(hint.firstEvent) !== undefined) return 'GET stream opening with an MCP endpoint event';
  if (hint.method === 'GET' || hint.method === 'DELETE') return session ? `${hint.method} with Mcp-Session-Id` : undefined;
  if (hint.method !== 'POST' || hint.requestBody === undefined) return undefined;
  const members = Array.isArray(hint.requestBody) ? hint.requestBody : [hint.requestBody];
  if (members.length === 0 || !members.every(isJsonRpcMessage)) return undefined;
  const method = members.map(mcpMethodOf).find((m) => m !== undefined);
  if (method !== undefined) return `POST of MCP method ${method}`;
  if (session) return 'JSON-RPC POST with Mcp-Session-Id';
  if (headerValue(headers, MCP_VERSION_HEADER) !== undefined) return 'JSON-RPC POST with MCP-Protocol-Version';
  return undefined;
}

/** How sure an HTTP channel is MCP's (see mcpHttpEvidence). */
export function classifyMcpHttp(hint: ChannelHint): number {
  return mcpHttpEvidence(hint) === undefined ? 0 : 0.9;
}

function isJsonRpcMessage(value: unknown): boolean {
  return isJsonObject(value) && value.jsonrpc === '2.0' && classifyJsonRpc(value).kind !== 'other';
}

/** The query parameter the 2024-11-05 HTTP+SSE transport's endpoint URL names its session by (the SDK's and most servers'). */
export const LEGACY_SESSION_PARAM = 'sessionId';

/** The session id an `endpoint` event's URL names (`/messages?sessionId=…`), or undefined for any other text. */
export function endpointSessionOf(text: string): string | undefined {
  const url = eventData(text);
  if (!url.startsWith('/') && !/^https?:\/\//i.test(url)) return undefined;
  try {
    return new URL(url, 'http://endpoint.invalid').searchParams.get(LEGACY_SESSION_PARAM) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * An event's data: the text itself as record reads it, or the data lines of the whole SSE block as a
 * recording keeps an event that is not JSON (`event: endpoint` / `data: /message?sessionId=…`).
 */
export function eventData(text: string): string {
  if (!/^(data|event|id|retry):/m.test(text)) return text.trim();
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line.startsWith('data:'));
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n').trim();
}
