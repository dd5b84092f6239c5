import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';
import { PI_NDJSON_V1_ID } from '../../src/protocols/unix-ndjson/schemas.js';
import { restExchanges } from '../protocols/pi-rest/rest-exchanges.js';
import { runBatch } from './cli-batch.js';
import { runCli, type CliResult } from './run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const folder = tempDir('agent-proxy-validate-');
afterAll(() => folder.cleanup());
const tmp = folder.dir;

describe('proxy validate', () => {
  // The runs on the shipped examples, and the two usage errors, in one batch of CLI runs
  // (test/cli/cli-batch.ts), made before the first test: a process each would cost ~0.3 s of CPU
  // apiece. The first and the missing file also run as processes of their own, which must print the same.
  const DAEMON = 'recordings/examples/pi-daemon-session.ndjson';
  const runs = {
    textRun: ['validate', 'examples/agui-text-run.sse'],
    brokenRun: ['validate', 'examples/agui-broken-run.sse'],
    brokenJson: ['validate', '--json', 'examples/agui-broken-run.sse'],
    missing: ['validate', join(tmp, 'nope.json')],
    usage: ['validate', '--protocol', 'smtp', 'examples/agui-text-run.sse'],
    daemonJson: ['validate', '--json', DAEMON],
    daemonFindings: ['findings', '--json', DAEMON],
    daemon: ['validate', DAEMON],
  };
  const ran = {} as Record<keyof typeof runs, CliResult>;
  beforeAll(async () => {
    const names = Object.keys(runs) as Array<keyof typeof runs>;
    const results = await runBatch(
      names.map((name) => runs[name]),
      { real: [0, names.indexOf('missing')] },
    );
    names.forEach((name, i) => (ran[name] = results[i]));
  });

  it('accepts a valid SSE run and exits 0', async () => {
    const r = ran.textRun;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/8 messages \(agui\): 8 valid, 0 invalid, 0 unchecked; 0 errors, 0 warnings/);
  });

  it('reports each problem of the broken example with file and line, and exits 1', async () => {
    const r = ran.brokenRun;
    expect(r.code).toBe(1);
    // The content before its start (line 6), the patch that does not apply (line 18, a warning),
    // and the RUN_FINISHED whose runId is not the run's (line 20).
    expect(r.stdout).toMatch(/agui-broken-run\.sse:6 .*TEXT_MESSAGE_CONTENT\s+invalid/);
    expect(r.stdout).toMatch(/agui-broken-run\.sse:18 .*STATE_DELTA\s+valid[\s\S]*warning/);
    expect(r.stdout).toMatch(/agui-broken-run\.sse:20 .*RUN_FINISHED\s+invalid/);
  });

  it('prints a machine-readable report with --json', async () => {
    const r = ran.brokenJson;
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.protocols).toEqual(['agui']);
    expect(report.summary.messages).toBe(9);
    expect(report.summary.invalid).toBeGreaterThanOrEqual(2);
    const finished = report.messages.find((m: { label: string }) => m.label === 'RUN_FINISHED');
    expect(finished.verdict.status).toBe('invalid');
  });

  it('judges a JSON array fixture, NDJSON and capture documents', async () => {
    const run = [
      { type: 'RUN_STARTED', threadId: 't-1', runId: 'r-1' },
      { type: 'TOOL_CALL_START', toolCallId: 'call-1', toolCallName: 'lookup', parentMessageId: 'm-1' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call-1', delta: '{"q":"x"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call-1' },
      { type: 'RUN_FINISHED', threadId: 't-1', runId: 'r-1' },
    ];
    const arrayFile = join(tmp, 'agui-run.json');
    writeFileSync(arrayFile, JSON.stringify(run));
    const array = await runCli(['validate', arrayFile]);
    expect(array.stdout).toMatch(/5 messages \(agui\): 5 valid/);
    expect(array.code).toBe(0);
    const ndjson = join(tmp, 'pi.jsonl');
    writeFileSync(ndjson, '{"id":"1","type":"get_state"}\n{"id":"1","type":"response","command":"get_state","success":false,"error":"x"}\n');
    const lines = await runCli(['validate', ndjson]);
    expect(lines.stdout).toMatch(/\(pi-rpc\)/);
    expect(lines.code).toBe(0);
    const captureFile = join(tmp, 'rest-capture.json');
    writeFileSync(captureFile, JSON.stringify({ records: restExchanges() }));
    const capture = await runCli(['validate', '--schemas', STANDIN_SCHEMAS_DIR, captureFile]);
    expect(capture.stdout).toMatch(/\(pi-rest\): \d+ valid, 0 invalid, 0 unchecked/);
    expect(capture.code).toBe(0);
  });

  it('judges MCP as mcp by its schema, and with --protocol json-rpc by the envelope and id rules only', async () => {
    const mcp = [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
      { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
    ];
    const file = join(tmp, 'mcp.jsonl');
    writeFileSync(file, mcp.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const broken = join(tmp, 'mcp-broken.jsonl');
    writeFileSync(broken, [mcp[3], { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }].map((m) => JSON.stringify(m)).join('\n') + '\n');
    // The three in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [asMcp, asJsonRpc, r] = await runBatch([
      ['validate', file],
      ['validate', '--protocol', 'json-rpc', file],
      ['validate', '--protocol', 'json-rpc', broken],
    ]);
    for (const [judged, id] of [[asMcp, 'mcp'], [asJsonRpc, 'json-rpc']] as const) {
      expect(judged.stdout).toContain(`5 messages (${id}): 5 valid, 0 invalid, 0 unchecked`);
      expect(judged.code).toBe(0);
    }
    expect(r.stdout).toMatch(/jsonrpc-result-and-error/);
    expect(r.code).toBe(1);
  });

  it('judges the unix-socket protocol with the shipped schema, and marks messages unchecked, with the reason, when a referenced schema is not loaded', async () => {
    const lines = [
      { dir: 'client->server', msg: { protocolVersion: '1.0', requestId: 'hs-1', operation: 'handshake', payload: {} } },
      { dir: 'server->client', msg: { protocolVersion: '1.0', kind: 'response', requestId: 'hs-1', hostInstanceId: 'h', ok: true, data: {} } },
    ];
    const file = join(tmp, 'ndjson-capture.json');
    writeFileSync(file, JSON.stringify({ records: lines }));
    const shipped = await runCli(['validate', '--protocol', 'unix-ndjson', file]);
    expect(shipped.stdout).not.toMatch(/unchecked:|not loaded/);
    expect(shipped.stdout).toMatch(/\(unix-ndjson\): \d+ valid, \d+ invalid, 0 unchecked/);

    // A protocol schema (here one --schemas puts in place of the shipped one) that refers to a document nobody loaded.
    const schemas = join(tmp, 'schemas-with-a-gap');
    mkdirSync(schemas, { recursive: true });
    const gap = { $ref: 'https://example.test/missing.schema.json#/$defs/thing' };
    writeFileSync(
      join(schemas, 'protocol.schema.json'),
      JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: PI_NDJSON_V1_ID, $defs: { handshakeCommand: gap, baseCommand: gap, response: gap, event: gap } }),
    );
    const r = await runCli(['validate', '--protocol', 'unix-ndjson', '--schemas', schemas, file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/unchecked.*missing\.schema\.json.*--schemas/);
  });

  it('names the file and line of malformed input, and exits 2', async () => {
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(bad, '{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n{"type": oops}\n');
    const r = await runCli(['validate', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${bad}:2:`);
  });

  it('exits 2 with one line on bad usage or a missing file', async () => {
    const missing = ran.missing;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^agent-proxy: .*nope\.json: cannot read: ENOENT\n$/);
    const usage = ran.usage;
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('agrees with findings on the example daemon session: its WebSocket close frames are not protocol messages', async () => {
    const [validate, findings] = [ran.daemonJson, ran.daemonFindings];
    expect(findings.code).toBe(0);
    expect(JSON.parse(findings.stdout).findings).toEqual([]);
    const report = JSON.parse(validate.stdout);
    expect(report.messages.flatMap((m: { verdict: { findings: unknown[] } }) => m.verdict.findings)).toEqual([]);
    expect(report.summary.invalid).toBe(0);
    expect(validate.code).toBe(0);
  });

  it('names a recording\'s message #exchange.seq, as show --exchange numbers it', async () => {
    const file = DAEMON;
    const r = ran.daemon;
    // The daemon's close frames are the last two messages (33 and 34) of exchange 6, not messages 39 and 40 of the file.
    expect(r.stdout).toContain(`${file} #6.33  ← object  unchecked  (close frame, not a protocol message)`);
    expect(r.stdout).toContain(`${file} #6.34  → object  unchecked  (close frame, not a protocol message)`);
    expect(r.stdout).not.toMatch(/ #39 /);
  });
});
