/**
 * MCP over a child's stdio: the official SDK's Client against the reference server-everything,
 * through `agent-proxy record --stdio`. The recording labels it `mcp` (not ACP, not plain JSON-RPC),
 * judges it by the schema of the negotiated version and MCP's rules with no finding, and says which
 * line recognised it.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { EVERYTHING_CLI, mcpSession } from '../support/mcp-everything.js';
import { runCli } from '../cli/run-cli.js';
import { BIN, readRecording } from './stdio-helpers.js';

const { scratch } = fixturesAfterEach();

describe('MCP over stdio (official SDK, reference server) through record --stdio', () => {
  it('is labelled mcp, judged valid by the negotiated schema and MCP\'s rules, and never reported as ACP', async () => {
    const out = scratch().file('mcp-stdio.db');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'record', '--stdio', '--out', out, '--', process.execPath, EVERYTHING_CLI, 'stdio'],
      env: { ...process.env, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '' } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'agent-proxy-test', version: '1.0.0' });
    await client.connect(transport);
    await mcpSession(client);
    await client.close();

    const { exchanges, messages } = readRecording(out);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ transport: 'stdio', protocol: 'mcp', protocolEvidence: 'MCP method initialize' });
    const lines = messages(exchanges[0].id).filter((m) => m.channel !== 'stderr');
    expect(lines.length).toBeGreaterThanOrEqual(18);
    expect(lines.filter((m) => m.verdict.status !== 'valid').map((m) => ({ seq: m.seq, verdict: m.verdict, json: m.json }))).toEqual([]);

    const shown = JSON.parse((await runCli(['show', out, '--json'])).stdout) as { exchanges: Array<{ protocol: string; invalid: number }> };
    expect(shown.exchanges).toMatchObject([{ protocol: 'mcp', invalid: 0 }]);
    const findings = JSON.parse((await runCli(['findings', out, '--json'])).stdout) as { totals: { findings: number } };
    expect(findings.totals.findings).toBe(0);
  });
});
