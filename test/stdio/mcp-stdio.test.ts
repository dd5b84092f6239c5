/**
 * MCP over a child's stdio: the official SDK's Client against the reference server-everything,
 * through `agent-proxy record --stdio` as an MCP client's configuration would run it (command: the
 * proxy; args: record --stdio --out X -- node <server> stdio). The client gets exactly what it gets
 * from the server run directly, through every tool, resource, prompt, completion and logging level;
 * the recording labels it `mcp` (not ACP, not plain JSON-RPC), judges every message by the
 * negotiated version's schema with no finding, and says which line recognised it. `replay --stdio`
 * of it then gives the same client the same results.
 */
import { describe, expect, it } from 'vitest';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { EVERYTHING_CLI, connectCapableClient, mcpEverySession } from '../support/mcp-everything.js';
import { runCli } from '../cli/run-cli.js';
import { closeWhenExited } from '../support/mcp-stdio-close.js';
import { BIN, readRecording } from './stdio-helpers.js';

const { scratch } = fixturesAfterEach();

/** One environment for both runs: the server's get-env tool reports it. */
const ENV = { ...getDefaultEnvironment(), NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' };

async function everything(command: string, args: string[], stderr?: { text: string }, terminate = true): Promise<Array<[string, unknown]>> {
  const transport = new StdioClientTransport({ command, args, env: ENV, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr) stderr.text += chunk.toString('utf8');
  });
  const client = await connectCapableClient(transport);
  try {
    return await mcpEverySession(client);
  } finally {
    await closeWhenExited(client, transport, { terminate });
  }
}

describe('MCP over stdio (official SDK, reference server) through record --stdio', () => {
  it('gives the client what the server gives it directly, every message judged by the negotiated schema, no finding', async () => {
    const out = scratch().file('mcp-stdio.db');
    // Side by side: the task tool polls once a second, so each run takes a few seconds of waiting.
    const [direct, proxied] = await Promise.all([
      everything(process.execPath, [EVERYTHING_CLI, 'stdio']),
      everything(process.execPath, [BIN, 'record', '--stdio', '--out', out, '--', process.execPath, EVERYTHING_CLI, 'stdio']),
    ]);
    expect(proxied).toEqual(direct);
    // Every tool the server lists was called.
    const listed = (direct[0][1] as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(listed.filter((name) => !direct.some(([what]) => what.endsWith(` ${name}`)))).toEqual([]);

    const { exchanges, messages } = readRecording(out);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ transport: 'stdio', protocol: 'mcp', protocolEvidence: 'MCP method initialize' });
    const lines = messages(exchanges[0].id).filter((m) => m.channel !== 'stderr');
    expect(lines.length).toBeGreaterThanOrEqual(100);
    expect(lines.filter((m) => m.verdict.status !== 'valid').map((m) => ({ seq: m.seq, verdict: m.verdict, json: m.json }))).toEqual([]);
    // Judged by the definition for each method and direction, of the negotiated version.
    const negotiated = 'https://modelcontextprotocol.io/schema/2025-11-25/schema.json#/$defs/';
    expect(lines.filter((m) => !m.verdict.schemaRef?.startsWith(negotiated)).map((m) => m.verdict.schemaRef)).toEqual([]);
    expect([...new Set(lines.map((m) => m.verdict.schemaRef!.slice(negotiated.length)))]).toEqual(expect.arrayContaining(['CallToolResult', 'ReadResourceResult', 'GetPromptResult', 'CompleteResult', 'CreateMessageResult', 'ElicitResult', 'ListRootsResult', 'ProgressNotification', 'CreateTaskResult', 'GetTaskResult', 'EmptyResult']));

    const findings = JSON.parse((await runCli(['findings', out, '--json'])).stdout) as { totals: { findings: number } };
    expect(findings.totals.findings).toBe(0);

    // The same client against a replay of the recording (a new process is a new session): the same
    // results, nothing missed. At the recorded pace: the SDK handles a response at once and a
    // notification a microtask later, so progress read in one chunk with its response is dropped.
    const replayed = { text: '' };
    // The replay ends when its stdin does.
    expect(await everything(process.execPath, [BIN, 'replay', '--stdio', '--strict', out], replayed, false)).toEqual(direct);
    expect(replayed.text).toMatch(/replay of #1 ended: \d+ lines sent, 0 misses, 0 recorded client lines unused/);
  });
});
