/**
 * `proxy findings`: every finding of a recording in one list, driven through the built CLI on a
 * recording written by hand (NDJSON, then imported to .db for the large case, in-process: the import
 * is what `import` calls, and not what is tested here).
 */
import { describe, expect, it } from 'vitest';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { writeNdjsonRecording, type HandExchange } from '../support/ndjson-recording.js';
import { useCleanups } from '../replay/replay-helpers.js';
import { runBatch } from './cli-batch.js';
import { runCli } from './run-cli.js';

useCleanups();

const leak = (pointer: string) => ({ rule: 'secret-leak', severity: 'error' as const, pointer, message: "the value of write-only env key 'TOKEN' appears in a server message" });
const late = { rule: 'response-uncorrelatable', severity: 'warning' as const, pointer: '/response', message: 'the rpc_in_flight_capacity rejection carries no id' };
const schema = { rule: 'schema', severity: 'error' as const, pointer: '/type', message: 'must be equal to one of the allowed values' };

const EXCHANGES: HandExchange[] = [
  {
    transport: 'sse',
    protocol: 'agui',
    method: 'POST',
    path: '/agent',
    status: 200,
    messages: [
      { sender: 'client', json: { threadId: 't', runId: 'r', messages: [] } },
      { sender: 'server', json: { type: 'RUN_STARTED', threadId: 't', runId: 'r' } },
      { sender: 'server', json: { type: 'BOGUS' }, findings: [schema] },
    ],
  },
  { transport: 'http', protocol: 'pi-rest', method: 'GET', path: '/v1/capabilities', status: 200, messages: [{ sender: 'server', json: { ok: true } }] },
  {
    transport: 'ws',
    protocol: 'pi-daemon-rpc',
    method: 'GET',
    path: '/v1/session/pd-x/rpc',
    status: 101,
    messages: [
      { sender: 'client', json: { kind: 'command', command: { id: 'c1', type: 'bash', command: 'env' } } },
      { sender: 'server', json: { kind: 'response', response: { id: 'c1', type: 'response', command: 'bash', success: true, data: { output: 'x' } } }, findings: [leak('/response/data/output'), leak('/response/data/again')] },
      { sender: 'server', json: { kind: 'response', response: { type: 'response', command: 'unknown', success: false, error: 'rpc_in_flight_capacity' } }, findings: [late] },
    ],
  },
];

function recording(exchanges = EXCHANGES): string {
  return writeNdjsonRecording(exchanges, 'findings.ndjson');
}

describe('proxy findings', () => {
  it('lists every finding: exchange and message, severity and rule, pointer, text; then the totals; exit 0', async () => {
    const done = await runCli(['findings', recording()]);
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout.split('\n')).toEqual([
      '#1 POST /agent  3 ← BOGUS  error schema at /type: must be equal to one of the allowed values',
      "#3 GET /v1/session/pd-x/rpc  2 ← response:response  error secret-leak at /response/data/output: the value of write-only env key 'TOKEN' appears in a server message",
      "#3 GET /v1/session/pd-x/rpc  2 ← response:response  error secret-leak at /response/data/again: the value of write-only env key 'TOKEN' appears in a server message",
      '#3 GET /v1/session/pd-x/rpc  3 ← response:response  warning response-uncorrelatable at /response: the rpc_in_flight_capacity rejection carries no id',
      '4 findings (3 errors, 1 warning)',
      '',
    ]);
  });

  it('filters by rule (repeatable), severity and exchange; --json is one document with totals', async () => {
    const file = recording();
    const [byRule, bySeverity, byExchange] = await runBatch(
      [
        ['findings', file, '--rule', 'schema', '--rule', 'response-uncorrelatable', '--json'],
        ['findings', file, '--severity', 'warning', '--json'],
        ['findings', file, '--exchange', '1', '--json'],
      ],
      { real: [] },
    );
    expect(byRule.code).toBe(0);
    const doc = JSON.parse(byRule.stdout);
    expect(doc.recording).toBe(file);
    expect(doc.findings).toEqual([
      { exchange: 1, transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent', seq: 3, sender: 'server', label: 'BOGUS', ...schema },
      { exchange: 3, transport: 'ws', protocol: 'pi-daemon-rpc', method: 'GET', path: '/v1/session/pd-x/rpc', seq: 3, sender: 'server', label: 'response:response', ...late },
    ]);
    expect(doc.totals).toEqual({ findings: 2, errors: 1, warnings: 1 });
    const warnings = JSON.parse(bySeverity.stdout);
    expect(warnings.findings.map((f: { rule: string }) => f.rule)).toEqual(['response-uncorrelatable']);
    const one = JSON.parse(byExchange.stdout);
    expect(one.totals).toEqual({ findings: 1, errors: 1, warnings: 0 });
  });

  it("lists a failed upstream TLS check as its exchange's own error, in exchange order, ahead of that exchange's message findings; filters apply to it too", async () => {
    const expired = 'TLS certificate check of https://agents.example.test failed: its certificate has expired [CERT_HAS_EXPIRED]';
    const untrusted = "TLS certificate check of https://agents.example.test failed: its certificate's issuer is unknown [UNABLE_TO_VERIFY_LEAF_SIGNATURE]";
    const file = recording([
      EXCHANGES[0],
      // Made before exchanges.tls: the code is read from the stored message.
      { transport: 'http', method: 'GET', path: '/v1/health', status: 502, error: { code: 'E_UPSTREAM_TLS', message: expired }, messages: [] },
      { transport: 'http', method: 'GET', path: '/v1/other', status: 502, error: { code: 'E_UPSTREAM_TLS', message: untrusted }, tls: { authorized: false, authorizationError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }, messages: [] },
      { transport: 'http', method: 'GET', path: '/v1/gone', status: 502, error: { code: 'E_UPSTREAM_UNREACHABLE', message: 'cannot reach https://agents.example.test: ECONNREFUSED' }, messages: [] },
      EXCHANGES[2],
    ]);
    // The four runs in one batch of CLI runs (test/cli/cli-batch.ts); the first also as a process of its own.
    const [done, exchange3, bySchema, byWarning] = await runBatch([
      ['findings', file],
      ['findings', file, '--exchange', '3', '--json'],
      ['findings', file, '--rule', 'schema', '--json'],
      ['findings', file, '--severity', 'warning', '--json'],
    ]);
    expect(done.code).toBe(0);
    expect(done.stdout.split('\n')).toEqual([
      '#1 POST /agent  3 ← BOGUS  error schema at /type: must be equal to one of the allowed values',
      `#2 GET /v1/health  exchange  error upstream-tls-failed: the upstream's TLS failed: expired certificate (${expired})`,
      `#3 GET /v1/other  exchange  error upstream-tls-failed: the upstream's TLS failed: certificate from an unknown issuer (${untrusted})`,
      '#4 GET /v1/gone  exchange  error upstream-unreachable: the upstream could not be reached (cannot reach https://agents.example.test: ECONNREFUSED)',
      "#5 GET /v1/session/pd-x/rpc  2 ← response:response  error secret-leak at /response/data/output: the value of write-only env key 'TOKEN' appears in a server message",
      "#5 GET /v1/session/pd-x/rpc  2 ← response:response  error secret-leak at /response/data/again: the value of write-only env key 'TOKEN' appears in a server message",
      '#5 GET /v1/session/pd-x/rpc  3 ← response:response  warning response-uncorrelatable at /response: the rpc_in_flight_capacity rejection carries no id',
      '7 findings (6 errors, 1 warning)',
      '',
    ]);
    const only = JSON.parse(exchange3.stdout);
    expect(only.findings).toEqual([
      { exchange: 3, transport: 'http', protocol: null, method: 'GET', path: '/v1/other', seq: 0, sender: 'server', label: 'exchange', rule: 'upstream-tls-failed', severity: 'error', pointer: '', message: `the upstream's TLS failed: certificate from an unknown issuer (${untrusted})` },
    ]);
    expect(JSON.parse(bySchema.stdout).totals).toEqual({ findings: 1, errors: 1, warnings: 0 });
    expect(JSON.parse(byWarning.stdout).totals).toEqual({ findings: 1, errors: 0, warnings: 1 });
  });

  it('makes an upstream that could not be reached an error of its exchange: findings --fail-on error and validate fail', async () => {
    const file = recording([
      EXCHANGES[1],
      { transport: 'http', method: 'POST', path: '/agent', status: 502, error: { code: 'E_UPSTREAM_UNREACHABLE', message: 'cannot reach http://agents.example.test: ENOTFOUND' }, messages: [] },
    ]);
    const [gate, validate] = await runBatch([['findings', file, '--fail-on', 'error', '--json'], ['validate', file]], { real: [] });
    expect(gate.code).toBe(1);
    expect(JSON.parse(gate.stdout).findings).toEqual([
      { exchange: 2, transport: 'http', protocol: null, method: 'POST', path: '/agent', seq: 0, sender: 'server', label: 'exchange', rule: 'upstream-unreachable', severity: 'error', pointer: '', message: 'the upstream could not be reached (cannot reach http://agents.example.test: ENOTFOUND)' },
    ]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`${file} #2 POST /agent  error upstream-unreachable: the upstream could not be reached`);
  });

  it('--fail-on exits 1 when a listed finding is at or above the severity, for a CI gate', async () => {
    const file = recording();
    const clean = recording([EXCHANGES[1]]);
    // The five runs in one batch of CLI runs (test/cli/cli-batch.ts); the first and the last also as processes of their own.
    const [errorGate, warningGate, warningsOnly, oneRule, done] = await runBatch(
      [
        ['findings', file, '--fail-on', 'error'],
        ['findings', file, '--fail-on', 'warning'],
        ['findings', file, '--severity', 'warning', '--fail-on', 'error'],
        ['findings', file, '--rule', 'response-uncorrelatable', '--fail-on', 'warning'],
        ['findings', clean, '--fail-on', 'warning'],
      ],
      { real: [0, 4] },
    );
    expect(errorGate.code).toBe(1);
    expect(warningGate.code).toBe(1);
    // Only warnings listed: no error to fail on, but a warning gate still fails.
    expect(warningsOnly.code).toBe(0);
    expect(oneRule.code).toBe(1);
    // A clean recording passes either gate.
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('0 findings (0 errors, 0 warnings)\n');
  });

  it('a bad option is one line on stderr and exit 2', async () => {
    const file = recording();
    const badSeverity = await runCli(['findings', file, '--fail-on', 'fatal']);
    expect(badSeverity.code).toBe(2);
    expect(badSeverity.stderr.trim().split('\n')).toHaveLength(1);
    const badExchange = await runCli(['findings', file, '--exchange', 'x']);
    expect(badExchange.code).toBe(2);
    expect(badExchange.stderr).toBe("agent-proxy: --exchange 'x' is not an exchange id\n");
  });

  it('streams a long list: 30,000 findings from a .db, every one listed once', async () => {
    const messages = Array.from({ length: 30_000 }, (_, i) => ({ sender: 'server' as const, json: { type: 'TEXT_MESSAGE_CONTENT', delta: String(i) }, findings: [{ ...schema, pointer: `/n${i}` }] }));
    const file = recording([{ transport: 'sse', protocol: 'agui', method: 'POST', path: '/agent', status: 200, messages }]);
    const db = file.replace(/\.ndjson$/, '.db');
    expect(importNdjsonFile(file, db).messages).toBe(30_000);
    const done = await runCli(['findings', db, '--json']);
    expect(done.code).toBe(0);
    const doc = JSON.parse(done.stdout);
    expect(doc.totals).toEqual({ findings: 30_000, errors: 30_000, warnings: 0 });
    expect(doc.findings.map((f: { seq: number }) => f.seq)).toEqual(Array.from({ length: 30_000 }, (_, i) => i + 1));
  });
});
