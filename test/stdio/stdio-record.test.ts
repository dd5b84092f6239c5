import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyChannel } from '../../src/protocols/modules.js';
import { chooseProtocol } from '../../src/judge/protocol-choice.js';
import { startStdioRecorder, stdioHint } from '../../src/record/relay/stdio-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { tempDir } from '../support/temp-dir.js';
import { bareRegistry } from '../support/shared.js';
import { ACP_AGENT, BIN, BURST_AGENT, PI_AGENT, readRecording, recordStdio, runAcpClient, spawnLines, type LineProcess } from './stdio-helpers.js';

let dir: ReturnType<typeof tempDir>;

/** Every finding of a recording as `findings` lists them: [#exchange.seq, severity, rule, message]. */
function findingsOf(file: string): string[][] {
  const reader = RecordingReader.open(file);
  try {
    return [...reader.findings({})].map((f) => [`#${f.exchange}.${f.seq}`, f.severity, f.rule, f.message]);
  } finally {
    reader.close();
  }
}

beforeEach(() => {
  dir = tempDir('agent-proxy-stdio-');
});
afterEach(() => dir.cleanup());

/** A Pi RPC session as a frontend would drive it: one command at a time, waiting for its response. */
async function piSession(proc: LineProcess): Promise<void> {
  proc.send('{"id":"s1","type":"get_state"}\r\n');
  await proc.waitForLines(1);
  proc.send('not json at all\n');
  await proc.waitForLines(2);
  proc.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
  await proc.waitForLines(3);
  proc.send('{"id":"p1","type":"prompt","message":"Say hello \u2028 with a line separator"}\n');
  await proc.waitForLines(20);
  proc.send('{"id":"t1","type":"get_last_assistant_text"}\n');
  await proc.waitForLines(21);
  proc.child.stdin.end();
}

/** A 3 MiB line, a short one, and a 200 KiB one that the agent never ends (plain JS: it is sent to the agent as source). */
function overLongLines() {
  return {
    long: '{"type":"message_update","text":"' + 'x'.repeat(3 * 1024 * 1024) + '"}\n',
    normal: '{"type":"agent_start"}\n',
    cut: '{"type":"message_update","text":"' + 'y'.repeat(200 * 1024),
  };
}

describe('proxy record --stdio', () => {
  it('picks pi-rpc, acp and json-rpc for stdio from the sniffed protocol, with what recognised it', () => {
    expect(chooseProtocol({ hint: stdioHint('pi-rpc', 'Pi RPC command get_state') })).toMatchObject({ module: { id: 'pi-rpc' }, evidence: 'Pi RPC command get_state' });
    expect(chooseProtocol({ hint: stdioHint('acp', 'ACP method initialize') })?.module.id).toBe('acp');
    expect(chooseProtocol({ hint: stdioHint('json-rpc', 'JSON-RPC request tools/list') })?.module.id).toBe('json-rpc');
    // A stdio channel alone is nobody's: its lines decide.
    expect(classifyChannel({ transport: 'stdio' })).toBeUndefined();
  });

  it('passes a Pi RPC agent through unchanged and records every line, stderr and the exit code', async () => {
    const env = { STANDIN_STDERR: 'pi stand-in starting', STANDIN_EXIT: '3' };
    const direct = spawnLines('node', [PI_AGENT], env);
    await piSession(direct);
    expect((await direct.exited).code).toBe(3);

    const out = dir.file('pi.db');
    const proxied = recordStdio(out, PI_AGENT, [], env);
    await piSession(proxied);
    const exit = await proxied.exited;
    expect(exit.code).toBe(3);
    // stdout carries exactly the agent's bytes: nothing of the proxy's.
    expect(proxied.stdout().equals(direct.stdout())).toBe(true);
    expect(proxied.stderr()).toContain('pi stand-in starting');
    expect(proxied.stderr()).toMatch(/agent-proxy: .*stdio\/pi-rpc/);

    const rec = readRecording(out);
    expect(rec.exchanges).toHaveLength(1);
    const [exchange] = rec.exchanges;
    expect(exchange).toMatchObject({ transport: 'stdio', protocol: 'pi-rpc', outcome: 'complete', exitCode: 3, signal: null });
    const messages = rec.messages(exchange.id);
    const stdin = messages.filter((m) => m.channel === 'stdin');
    const stdout = messages.filter((m) => m.channel === 'stdout');
    const stderr = messages.filter((m) => m.channel === 'stderr');
    expect(stdin.map((m) => m.sender)).toEqual(['client', 'client', 'client', 'client', 'client']);
    expect(stdout.every((m) => m.sender === 'server' && m.carrier === 'line')).toBe(true);
    expect(Buffer.concat(stdout.map((m) => m.raw)).equals(direct.stdout())).toBe(true);
    // A trailing CR stays in the raw bytes; the JSON is still parsed and judged.
    expect(stdin[0].raw.toString()).toBe('{"id":"s1","type":"get_state"}\r\n');
    expect(stdin[0].verdict.status).toBe('valid');
    // Invalid JSON and invalid UTF-8 are forwarded unchanged and recorded with a finding.
    expect(stdin[1].raw.toString()).toBe('not json at all\n');
    expect(stdin[1].verdict.status).toBe('invalid');
    expect(stdin[1].verdict.findings[0].rule).toBe('invalid-json');
    expect(stdin[2].raw.equals(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]))).toBe(true);
    expect(stdin[2].verdict.findings[0].message).toMatch(/UTF-8/);
    // U+2028 is content, not a line break.
    expect((stdin[3].json as { message: string }).message).toContain('\u2028');
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatchObject({ sender: 'server', verdict: { status: 'unchecked' } });
    expect(stderr[0].raw.toString()).toBe('pi stand-in starting\n');
    expect(stdout.every((m) => m.verdict.status === 'valid')).toBe(true);
  });

  it('forwards a burst that outruns recording at once and still records every line, in order', async () => {
    // ~7 MB in one go: recording falls more than a MiB behind, so batches wait in the spool file.
    const lines = 100_000;
    const out = dir.file('burst.db');
    const proxied = spawnLines('node', [BIN, 'record', '--stdio', '--quiet', '--protocol', 'pi-rpc', '--out', out, '--', process.execPath, BURST_AGENT, String(lines)]);
    proxied.child.stdin.end();
    expect((await proxied.exited).code).toBe(0);
    const expected = Array.from({ length: lines }, (_, i) => `{"type":"queue_update","steering":[],"followUp":["burst line ${i}"]}\n`).join('');
    expect(proxied.stdout().toString()).toBe(expected);
    // Read once: each read of the recording is 100,000 messages.
    const recording = readRecording(out);
    const stdout = recording.messages(recording.exchanges[0].id).filter((m) => m.channel === 'stdout');
    expect(stdout).toHaveLength(lines);
    expect(Buffer.concat(stdout.map((m) => m.raw)).toString()).toBe(expected);
    expect(stdout.every((m) => m.verdict.status === 'valid')).toBe(true);
    // Offsets are when capture saw each chunk, not when the worker got round to it: never decreasing.
    expect(stdout.every((m, i) => i === 0 || m.tOffsetMs >= stdout[i - 1].tOffsetMs)).toBe(true);
    // The spool is gone with the recorder.
    expect(existsSync(`${out}.spool`)).toBe(false);
  });

  it('forwards an over-long line whole and stores its start, with its size; a cut-off one is also incomplete', async () => {
    // The agent builds the same three strings (they are too large for its command line).
    const { long, normal, cut } = overLongLines();
    const script = `const { long, normal, cut } = (${overLongLines.toString()})();
      const w = (s) => new Promise((r) => process.stdout.write(s, r));
      (async () => { await w(long); await w(normal); await w(cut); })();`;
    const out = dir.file('long.db');
    const proxied = spawnLines('node', [BIN, 'record', '--stdio', '--quiet', '--protocol', 'pi-rpc', '--max-body', '65536', '--out', out, '--', process.execPath, '-e', script]);
    proxied.child.stdin.end();
    expect((await proxied.exited).code).toBe(0);
    expect(proxied.stdout().toString()).toBe(long + normal + cut);

    const [exchange] = readRecording(out).exchanges;
    const stdout = readRecording(out).messages(exchange.id).filter((m) => m.channel === 'stdout');
    expect(stdout).toHaveLength(3);
    expect(stdout[0].raw.toString()).toBe(long.slice(0, 65536));
    expect(stdout[0].verdict.status).toBe('unchecked');
    expect(stdout[0].verdict.findings.map((f) => f.rule)).toEqual(['oversized-message']);
    expect(stdout[0].verdict.findings[0].message).toContain(`${Buffer.byteLength(long)} bytes`);
    expect(stdout[1].raw.toString()).toBe(normal);
    expect(stdout[1].verdict.status).toBe('valid');
    expect(stdout[2].raw.toString()).toBe(cut.slice(0, 65536));
    expect(stdout[2].verdict.status).toBe('invalid');
    expect(stdout[2].verdict.findings.map((f) => f.rule)).toEqual(['invalid-json', 'oversized-message']);
    expect(stdout[2].verdict.findings[0].message).toBe(`incomplete line: the stream ended after ${cut.length} bytes without the line's LF`);
  });

  it('refuses an existing recording file before it starts the agent', async () => {
    const out = dir.file('taken.db');
    writeFileSync(out, 'not empty');
    const proxied = recordStdio(out, PI_AGENT, [], { STANDIN_STDERR: 'the agent started' });
    const exit = await proxied.exited;
    expect(exit.code).toBe(2);
    expect(proxied.stderr()).toBe(`agent-proxy: ${out} already exists; add --overwrite to replace it, or choose another file\n`);
    expect(proxied.stdout().length).toBe(0);
  });

  it('stops the agent it already started when the recording cannot be opened', async () => {
    // A parent "directory" that is a file: only the worker's open finds out, after the agent started.
    const blocker = dir.file('blocker');
    writeFileSync(blocker, '');
    const out = `${blocker}/rec.db`;
    const proxied = recordStdio(out, PI_AGENT);
    const exit = await proxied.exited;
    expect(exit.code).toBe(2);
    expect(proxied.stderr().trim().split('\n')).toHaveLength(1);
    expect(proxied.stderr()).toMatch(/^agent-proxy: .*rec\.db/);
  });

  it('forwards SIGTERM to the child and exits 128 + 15', async () => {
    const out = dir.file('signal.db');
    const proxied = recordStdio(out, PI_AGENT);
    proxied.send('{"id":"s1","type":"get_state"}\n');
    await proxied.waitForLines(1);
    proxied.child.kill('SIGTERM');
    const exit = await proxied.exited;
    expect(exit.code).toBe(143);
    const [exchange] = readRecording(out).exchanges;
    expect(exchange).toMatchObject({ outcome: 'complete', exitCode: null, signal: 'SIGTERM' });
  });

  it('forwards SIGINT as well', async () => {
    const out = dir.file('sigint.db');
    const proxied = recordStdio(out, PI_AGENT);
    proxied.send('{"id":"s1","type":"get_state"}\n');
    await proxied.waitForLines(1);
    proxied.child.kill('SIGINT');
    expect((await proxied.exited).code).toBe(130);
    expect(readRecording(out).exchanges[0].signal).toBe('SIGINT');
  });

  it('writes the live view to --json-log, leaving stderr to the child', async () => {
    const out = dir.file('log.db');
    const log = dir.file('live.ndjson');
    const proxied = recordStdio(out, PI_AGENT, ['--json-log', log], { STANDIN_STDERR: 'only this' });
    proxied.send('{"id":"s1","type":"get_state"}\nbroken\n');
    await proxied.waitForLines(2);
    proxied.child.stdin.end();
    expect((await proxied.exited).code).toBe(0);
    expect(proxied.stderr()).toBe('only this\n');
    const events = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string });
    expect(events.map((e) => e.event)).toEqual(['started', 'invalid', 'exchange', 'summary']);
    expect(events[3]).toMatchObject({ exitCode: 0, code: 0, messages: 5, invalid: 1 });
  });

  it('exits 127 with one line when the command cannot be started', async () => {
    const out = dir.file('missing.db');
    const proxied = spawnLines('node', [(await import('./stdio-helpers.js')).BIN, 'record', '--stdio', '--out', out, '--', '/nonexistent/agent-binary']);
    proxied.child.stdin.end();
    const exit = await proxied.exited;
    expect(exit.code).toBe(127);
    expect(proxied.stdout().length).toBe(0);
    // One line that says it (the live view's line of the exchange aside), and the recording holds the finding under its own code (not Node's ENOENT).
    expect(proxied.stderr().split('\n').filter((l) => l.startsWith('agent-proxy: could not start'))).toEqual([
      `agent-proxy: could not start /nonexistent/agent-binary: no such command (ENOENT) (recorded as upstream-unreachable in ${out})`,
    ]);
    expect(readRecording(out).exchanges[0]).toMatchObject({ transport: 'stdio', outcome: 'error', errorCode: 'E_SPAWN', errorMessage: 'could not start /nonexistent/agent-binary: no such command (ENOENT)' });
    expect(findingsOf(out)).toEqual([['#1.0', 'error', 'upstream-unreachable', 'the agent could not be started (could not start /nonexistent/agent-binary: no such command (ENOENT))']]);
  });

  it('records an agent that is not executable, or exits before its first line, as upstream-unreachable; one that exits 0 or is stopped by us is not', async () => {
    const script = dir.file('agent.sh');
    writeFileSync(script, '#!/bin/sh\necho up\n', { mode: 0o644 });
    const cases: Array<[string, string, string[], { code: number; error?: string; finding?: string[] }]> = [
      ['not-executable', script, [], { code: 127, error: `could not start ${script}: not executable (permission denied) (EACCES)`, finding: ['E_SPAWN', `the agent could not be started (could not start ${script}: not executable (permission denied) (EACCES))`] }],
      ['exits-early', process.execPath, ['-e', 'process.stderr.write("no config\\n"); process.exit(2)'], { code: 2, error: 'the agent exited with code 2 before it wrote a line on stdout', finding: ['E_AGENT_EXITED_EARLY', expect.stringMatching(/^the agent exited before it wrote a line \(.* exited with code 2 before it wrote a line on stdout\)$/) as unknown as string] }],
      ['exits-0-silently', process.execPath, ['-e', ''], { code: 0 }],
      ['answers-then-fails', process.execPath, ['-e', 'process.stdout.write("{}\\n"); process.exitCode = 3'], { code: 3 }],
    ];
    for (const [name, command, args, expected] of cases) {
      const out = dir.file(`${name}.db`);
      const recorder = await startStdioRecorder({ command, args, out, protocol: 'pi-rpc', stdin: Readable.from([]), stdout: new PassThrough().resume(), stderr: new PassThrough().resume() });
      const result = await recorder.done;
      expect({ code: result.code, error: result.error }, name).toEqual({ code: expected.code, error: expected.error });
      const [exchange] = readRecording(out).exchanges;
      if (expected.finding) {
        expect({ outcome: exchange.outcome, errorCode: exchange.errorCode }, name).toEqual({ outcome: 'error', errorCode: expected.finding[0] });
        expect(findingsOf(out), name).toEqual([['#1.0', 'error', 'upstream-unreachable', expected.finding[1]]]);
      } else {
        expect({ outcome: exchange.outcome, errorCode: exchange.errorCode }, name).toEqual({ outcome: 'complete', errorCode: null });
        expect(findingsOf(out).filter((f) => f[2] === 'upstream-unreachable'), name).toEqual([]);
      }
    }
    // An agent our Ctrl-C ends before it says anything did come up: nothing to report.
    const out = dir.file('stopped.db');
    const recorder = await startStdioRecorder({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], out, protocol: 'pi-rpc', stdin: new PassThrough(), stdout: new PassThrough().resume(), stderr: new PassThrough().resume() });
    await recorder.ready;
    recorder.kill('SIGTERM');
    const stopped = await recorder.done;
    expect({ signal: stopped.signal, error: stopped.error }).toEqual({ signal: 'SIGTERM', error: undefined });
    expect(readRecording(out).exchanges[0]).toMatchObject({ outcome: 'complete', errorCode: null });
  });

  it('passes an ACP agent (official SDK on both ends) through unchanged', async () => {
    const direct = spawnLines('node', [ACP_AGENT]);
    const expected = await runAcpClient(direct);
    direct.child.stdin.end();
    await direct.exited;

    const out = dir.file('acp.db');
    const proxied = recordStdio(out, ACP_AGENT);
    const seen = await runAcpClient(proxied);
    proxied.child.stdin.end();
    expect((await proxied.exited).code).toBe(0);
    expect(seen.stopReasons).toEqual(['end_turn', 'end_turn']);
    expect(seen.permissionAsked).toBe(1);
    expect(seen.received).toEqual(expected.received);
    expect(proxied.stdout().equals(direct.stdout())).toBe(true);

    const rec = readRecording(out);
    expect(rec.exchanges[0]).toMatchObject({ transport: 'stdio', protocol: 'acp', exitCode: 0 });
    const messages = rec.messages(rec.exchanges[0].id);
    expect(messages.filter((m) => m.channel === 'stdin').length).toBe(5); // initialize, session/new, 2 prompts, the permission answer
    const invalid = messages.filter((m) => m.verdict.status === 'invalid');
    expect(invalid.map((m) => m.verdict.findings)).toEqual([]);
  });
  describe('which side ended first', () => {
    /** Records the Pi stand-in in-process; `command` is written to its stdin, which is ended only when `endStdin`. */
    async function recordEnding(command: string, endStdin: boolean) {
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      stdout.resume();
      stderr.resume();
      const out = dir.file('ending.db');
      const recorder = await startStdioRecorder({ command: process.execPath, args: [PI_AGENT], protocol: 'pi-rpc', stdin, stdout, stderr, out, registry: bareRegistry(), pipeline: 'inline' });
      stdin.write(command);
      if (endStdin) stdin.end();
      await recorder.done;
      stdin.end();
      return readRecording(out).exchanges[0];
    }

    it('an agent that exits while its stdin is still open is stored as ended by the upstream (E_UPSTREAM_ENDED), with its code', async () => {
      const exchange = await recordEnding('{"id":"d1","type":"prompt","message":"STANDIN_DIE 3"}\n', false);
      expect(exchange).toMatchObject({ outcome: 'complete', exitCode: 3, errorCode: 'E_UPSTREAM_ENDED' });
      expect(exchange.errorMessage).toBe('the agent exited with code 3 before its stdin ended');
    });

    it('an agent that exits once its stdin ended has no such code', async () => {
      const exchange = await recordEnding('{"id":"s1","type":"get_state"}\n', true);
      expect(exchange).toMatchObject({ outcome: 'complete', exitCode: 0, errorCode: null });
    });
  });
});
