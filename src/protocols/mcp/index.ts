import { classifyJsonRpc } from '../json-rpc/index.js';
import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import { McpChecker } from './mcp-checker.js';
import { McpHttpChecker } from './http-checker.js';
import { McpHttpSessions } from './http-sessions.js';
import { mcpSenderOf } from './mcp-methods.js';
import { ParamHeaders } from './param-headers.js';
import { mcpReplayFacts } from './replay-facts.js';
import { redactSecretArguments } from './secret-arguments.js';
import { mcpSemantic } from './semantic.js';
import { mcpViews } from './session-view.js';

/** Model Context Protocol: JSON-RPC 2.0 between an agent (client) and its tools' server. */
export const mcpProtocol: ProtocolModule<'mcp'> = {
  ...mcpReplayFacts,
  title: 'Model Context Protocol (JSON-RPC 2.0)',

  semantic: mcpSemantic,
  views: mcpViews,

  /** By the method's sender in MCP; a response alone is guessed as the server's, which answers far more requests. */
  guessSender(value: unknown): 'client' | 'server' {
    const shape = classifyJsonRpc(value);
    if (shape.kind === 'request' || shape.kind === 'notification') return mcpSenderOf(shape.method) ?? 'client';
    return shape.kind === 'response' ? 'server' : 'client';
  },

  createChecker(context: CheckerContext): ProtocolChecker {
    const { channel } = context;
    const transport = channel?.transport;
    // Over HTTP a session spans exchanges: each exchange judges with its session's state.
    if ((transport === 'http' || transport === 'sse') && context.scope) {
      const route = { method: channel?.method, path: channel?.path, requestHeaders: channel?.requestHeaders };
      return new McpHttpChecker(McpHttpSessions.of(context.scope, context.registry), route, ParamHeaders.of(context.scope));
    }
    return new McpChecker(context.registry, transport === 'stdio');
  },

  /** A tool call's secret-named arguments (`apiToken`, `password`) are stored as `<redacted>`. */
  redactForStorage: (message) => redactSecretArguments(message),
};

export { MCP_RULES } from './mcp-rules.js';
