import type { Sender } from '../../core/message.js';
import { isJsonObject } from '../../core/json.js';
import { classifyJsonRpc } from '../json-rpc/json-rpc-message.js';

/**
 * MCP's method names in every shipped version, by the side that sends them ('both': either), for
 * telling MCP from other JSON-RPC without a schema at hand (sniffing, guessing a lone message's
 * sender). The checker takes each version's methods from its schema.
 */
const METHODS: ReadonlyMap<string, Sender | 'both'> = new Map<string, Sender | 'both'>([
  ['initialize', 'client'],
  ['ping', 'both'],
  ['server/discover', 'client'],
  ['subscriptions/listen', 'client'],
  ['resources/list', 'client'],
  ['resources/templates/list', 'client'],
  ['resources/read', 'client'],
  ['resources/subscribe', 'client'],
  ['resources/unsubscribe', 'client'],
  ['prompts/list', 'client'],
  ['prompts/get', 'client'],
  ['tools/list', 'client'],
  ['tools/call', 'client'],
  ['logging/setLevel', 'client'],
  ['completion/complete', 'client'],
  ['tasks/get', 'both'],
  ['tasks/result', 'both'],
  ['tasks/cancel', 'both'],
  ['tasks/list', 'both'],
  ['sampling/createMessage', 'server'],
  ['roots/list', 'server'],
  ['elicitation/create', 'server'],
  ['notifications/initialized', 'client'],
  ['notifications/cancelled', 'both'],
  ['notifications/progress', 'both'],
  ['notifications/tasks/status', 'both'],
  ['notifications/roots/list_changed', 'client'],
  ['notifications/message', 'server'],
  ['notifications/resources/list_changed', 'server'],
  ['notifications/resources/updated', 'server'],
  ['notifications/prompts/list_changed', 'server'],
  ['notifications/tools/list_changed', 'server'],
  ['notifications/elicitation/complete', 'server'],
  ['notifications/subscriptions/acknowledged', 'server'],
]);

/**
 * The MCP method a JSON-RPC request or notification calls, when MCP defines it. ACP shares one name,
 * `initialize`: MCP's asks for a date-string `protocolVersion` and carries `capabilities` and
 * `clientInfo`, ACP's a numeric one with `clientCapabilities`.
 */
export function mcpMethodOf(value: unknown): string | undefined {
  if (!isJsonObject(value) || value.jsonrpc !== '2.0') return undefined;
  const shape = classifyJsonRpc(value);
  if (shape.kind !== 'request' && shape.kind !== 'notification') return undefined;
  if (!METHODS.has(shape.method)) return undefined;
  if (shape.method === 'initialize') {
    const params = value.params;
    if (!isJsonObject(params) || typeof params.protocolVersion !== 'string' || !isJsonObject(params.capabilities) || !isJsonObject(params.clientInfo)) return undefined;
  }
  return shape.method;
}

/** Who sends `method`; undefined when either side may or MCP does not define it. */
export function mcpSenderOf(method: string): Sender | undefined {
  const side = METHODS.get(method);
  return side === 'both' ? undefined : side;
}

/**
 * An InitializeResult: a JSON-RPC response whose result has a date-string `protocolVersion`,
 * `capabilities` and `serverInfo` (ACP's has a numeric version and `agentCapabilities`). The one
 * answer that is MCP's alone: it chooses the older HTTP+SSE transport's stream, whose requests
 * travel in other exchanges.
 */
export function isMcpInitializeResult(value: unknown): boolean {
  if (!isJsonObject(value) || value.jsonrpc !== '2.0' || !isJsonObject(value.result)) return false;
  const { result } = value;
  return typeof result.protocolVersion === 'string' && isJsonObject(result.capabilities) && isJsonObject(result.serverInfo);
}
