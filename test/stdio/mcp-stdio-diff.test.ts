/**
 * `diff --semantic` of MCP conversations over stdio, each recorded through `record --stdio` as an MCP
 * client's configuration runs it, driven by the official SDK's Client. Two sessions of the reference
 * server-everything whose ids differ (the second pings first) compare equal; the stand-in server
 * changed (a tool's schema, a tool added, a call's result) is named by exactly those three changes.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { renderText } from '../../src/diff/render-text.js';
import { renderMarkdown } from '../../src/diff/render-markdown.js';
import { styleFor } from '../../src/core/style.js';
import { tempDir } from '../support/temp-dir.js';
import { EVERYTHING_CLI } from '../support/mcp-everything.js';
import { closeWhenExited } from '../support/mcp-stdio-close.js';
import { BIN } from './stdio-helpers.js';

const MCP_SERVER = fileURLToPath(new URL('../support/stdio-mcp-server.mjs', import.meta.url));
const ENV = { ...getDefaultEnvironment(), NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' };
const plain = styleFor({ isTTY: false } as NodeJS.WriteStream);

/**
 * Records `server` through `record --stdio`, the SDK client running `session` against it. The stand-in
 * exits when its stdin ends; server-everything does not, and is sent SIGTERM (always, so that both
 * recordings of a pair end the same way: an exit code against a signal would be a difference).
 */
async function recordSession(out: string, server: string[], session: (client: Client) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const terminate = server[0] === EVERYTHING_CLI;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'record', '--stdio', '--out', out, '--', process.execPath, ...server], env: { ...ENV, ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await session(client);
  } finally {
    await closeWhenExited(client, transport, { terminate });
  }
}

/** Tools, a call with progress, prompts; `pingFirst` shifts every request id and progress token after it. */
const everythingSession = (pingFirst: boolean) => async (client: Client) => {
  if (pingFirst) await client.ping();
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hello' } }, undefined, { onprogress: () => {} });
  await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  await client.listPrompts();
  await client.getPrompt({ name: 'simple-prompt' });
};

const standInSession = async (client: Client) => {
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { message: 'hi' } }, undefined, { onprogress: () => {} });
};

const dir = tempDir('agent-proxy-mcp-diff-');
const files = { everything: dir.file('everything.db'), everythingAgain: dir.file('everything-again.db'), standIn: dir.file('stand-in.db'), changed: dir.file('stand-in-changed.db') };

describe('diff --semantic of MCP over stdio', () => {
  beforeAll(async () => {
    await Promise.all([
      recordSession(files.everything, [EVERYTHING_CLI, 'stdio'], everythingSession(false)),
      recordSession(files.everythingAgain, [EVERYTHING_CLI, 'stdio'], everythingSession(true)),
      recordSession(files.standIn, [MCP_SERVER], standInSession),
      recordSession(files.changed, [MCP_SERVER], standInSession, { MCP_STANDIN_CHANGE: 'echo-number,add-tool,echo-upper' }),
    ]);
    return () => dir.cleanup();
  });

  it('two sessions of the same server with other request ids and progress tokens are equal', () => {
    const report = diffRecordingFiles(files.everything, files.everythingAgain, { semantic: true });
    expect(report.exchanges, JSON.stringify(report.exchanges)).toEqual([]);
    expect(report.equal).toBe(true);
    // Without --semantic the ping and the shifted ids are differences.
    expect(diffRecordingFiles(files.everything, files.everythingAgain).equal).toBe(false);
  });

  it('names a changed tool schema, a tool added and a changed call result, and nothing else', () => {
    const report = diffRecordingFiles(files.standIn, files.changed, { semantic: true });
    expect(report.summary.exchanges).toEqual({ equal: 0, changed: 1, added: 0, removed: 0 });
    const [exchange] = report.exchanges;
    expect(exchange.fields).toEqual([]);
    expect(exchange.messages.map((m) => m.a?.label)).toEqual(['mcp-session']);
    expect(exchange.messages[0].differences).toEqual([
      { pointer: '/calls/0/result/content/0/text', name: 'call 1 tools/call "echo": result /content/0/text', a: 'Echo: hi', b: 'Echo: HI' },
      { pointer: '/tools/echo/inputSchema/properties/message/type', name: 'tool "echo": inputSchema /properties/message/type', a: 'string', b: 'number' },
      { pointer: '/tools/shout', name: 'tool "shout"', b: { description: 'Shouts its message', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } } },
    ]);
    const text = renderText(report, plain);
    expect(text).toContain('        tool "echo": inputSchema /properties/message/type: "string" → "number"\n');
    expect(text).toContain('        tool "shout": (absent) → {"description":"Shouts its message"');
    expect(renderMarkdown(report)).toContain('| tool "echo": inputSchema /properties/message/type | `"string"` | `"number"` |');
  });
});
