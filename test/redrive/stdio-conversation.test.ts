/**
 * redrive --stdio in-process: an MCP session with the stdio stand-in server, recorded through the
 * stdio recorder by a client writing raw lines, is played again to a new stand-in started through the
 * recorder, and the two recordings diffed.
 */
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStdioRecorder } from '../../src/record/relay/stdio-recorder.js';
import { runRedrive, type RedriveEvent } from '../../src/redrive/run-redrive.js';
import { redriveStdioExchange } from '../../src/redrive/stdio-conversation.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { loadReplayScript } from '../../src/replay/replay-script.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { exportNdjsonText } from '../../src/export/ndjson-export.js';
import { ManualClock, deadlinesOf, driveClock } from '../support/manual-clock.js';
import { writeFileSync } from 'node:fs';
import { openRecording } from '../../src/store/open-recording.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';

const MCP_SERVER = fileURLToPath(new URL('../support/stdio-mcp-server.mjs', import.meta.url));
const ANSWERS_AT_END = fileURLToPath(new URL('../support/stdio-answers-at-end.mjs', import.meta.url));
const ACP_AGENT = fileURLToPath(new URL('../support/stdio-acp-agent.mjs', import.meta.url));
const dir = tempDir('agent-proxy-redrive-stdio-');
const golden = dir.file('golden.db');

/** Each client line, with how many stdout lines the client waits for before it writes the next. */
const SESSION: [unknown, number][] = [
  [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }, 1],
  [{ jsonrpc: '2.0', method: 'notifications/initialized' }, 1],
  [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }, 2],
  [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } }, 3],
];

/**
 * The client's lines in order, each once the answers before it have come; then stdin ends. A line
 * may be made from the answers so far (a session id the agent minted).
 */
async function recordGolden(agent = MCP_SERVER, session: [unknown | ((answers: string[]) => unknown), number][] = SESSION, out = golden, env?: NodeJS.ProcessEnv): Promise<void> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers: string[] = [];
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop()!;
    answers.push(...lines);
  });
  const recorder = await startStdioRecorder({ command: process.execPath, args: [agent], env, out, stdin, stdout, stderr: new PassThrough().resume() });
  for (const [message, count] of session) {
    stdin.write(`${JSON.stringify(typeof message === 'function' ? message(answers) : message)}\n`);
    await waitFor(() => answers.length >= count || undefined, `${count} answers`, { wakeOn: [[stdout, 'data']] });
  }
  stdin.end();
  await recorder.done;
}

/** The lines of a recording's one exchange, in recorded order: who sent each, and what. */
function recordedLines(file: string): { sender: string; json: unknown }[] {
  const reader = openRecording(file);
  try {
    return reader.messages(reader.exchanges()[0].id).map((m) => ({ sender: m.sender, json: m.json }));
  } finally {
    reader.close();
  }
}

/** Two lines to the agent that answers only once its stdin has ended, recorded once for the tests that use it. */
let batch: Promise<string> | undefined;
function batchRecorded(): Promise<string> {
  const out = dir.file('batch-golden.db');
  batch ??= recordGolden(ANSWERS_AT_END, [[{ ask: 'first' }, 0], [{ ask: 'second' }, 0]], out).then(() => out);
  return batch;
}

describe('runRedrive with a stdio agent', () => {
  beforeAll(() => recordGolden());
  afterAll(() => dir.cleanup());

  it('against the agent that produced the recording: every client line sent again, each after the answers it waited for; equal', async () => {
    const events: RedriveEvent['kind'][] = [];
    const result = await runRedrive({ recording: golden, agent: { command: process.execPath, args: [MCP_SERVER] }, out: dir.file('same.db'), diff: { semantic: true }, progress: (e) => events.push(e.kind) });
    expect(result).toMatchObject({ sent: 1, skipped: [] });
    expect(events).toEqual(['sent']);
    // Each client line after the agent lines recorded before it: the interleaving is the recording's.
    expect(recordedLines(result.out)).toEqual(recordedLines(golden));
    expect(recordedLines(result.out).filter((l) => l.sender === 'client')).toHaveLength(SESSION.length);
    expect(result.report.equal).toBe(true);
  });

  it('against the agent changed in one answer: exactly that change', async () => {
    const result = await runRedrive({
      recording: golden,
      agent: { command: process.execPath, args: [MCP_SERVER], env: { ...process.env, MCP_STANDIN_CHANGE: 'echo-upper' } },
      out: dir.file('changed.db'),
      diff: { semantic: true },
    });
    expect(result.report.equal).toBe(false);
    expect(result.report.summary).toMatchObject({ exchanges: { changed: 1, added: 0, removed: 0 }, regressions: 0 });
    const differences = result.report.exchanges.flatMap((e) => e.messages.flatMap((m) => m.differences));
    expect(differences.map((d) => [d.a, d.b])).toEqual([['Echo: hi', 'Echo: HI']]);
  });

  it('an agent command that cannot start: sent with the reason, and the diff shows the exchange unanswered', async () => {
    const events: RedriveEvent[] = [];
    const result = await runRedrive({ recording: golden, agent: { command: dir.file('no-such-agent'), args: [] }, out: dir.file('none.db'), diff: { semantic: true }, progress: (e) => events.push(e) });
    expect(events.map((e) => (e.kind === 'sent' ? e.error : e.reason))).toEqual([expect.stringMatching(/^could not start .*no-such-agent/)]);
    expect(result.report.equal).toBe(false);
  });

  it('against the agent writing logs on stdout: those lines, and only they, are regressions', async () => {
    const result = await runRedrive({
      recording: golden,
      agent: { command: process.execPath, args: [MCP_SERVER], env: { ...process.env, MCP_STANDIN_BREAK: 'stdout-log' } },
      out: dir.file('logs.db'),
      diff: { semantic: true },
    });
    expect(result.report.summary).toMatchObject({ exchanges: { changed: 1, added: 0, removed: 0 }, messages: { changed: 0, added: 2, removed: 0 }, regressions: 2 });
  });

  it('carries the session id the agent minted into the later lines: the prompt reaches the new ACP session; equal', async () => {
    const env = { ...process.env, ACP_STANDIN_MINT_IDS: '1' };
    const sessionOf = (line: string) => (JSON.parse(line) as { result: { sessionId: string } }).result.sessionId;
    const acpGolden = dir.file('acp-golden.db');
    await recordGolden(
      ACP_AGENT,
      [
        [{ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }, 1],
        [{ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/srv/work', mcpServers: [] } }, 2],
        // The text turn: its six updates, then the prompt's result.
        [(answers: string[]) => ({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: sessionOf(answers[1]), prompt: [{ type: 'text', text: 'hello' }] } }), 9],
      ],
      acpGolden,
      env,
    );
    const result = await runRedrive({ recording: acpGolden, agent: { command: process.execPath, args: [ACP_AGENT], env }, out: dir.file('acp.db'), diff: { semantic: true } });
    const lines = recordedLines(result.out);
    const made = (lines[3].json as { result: { sessionId: string } }).result.sessionId;
    expect(made).not.toBe((recordedLines(acpGolden)[3].json as { result: { sessionId: string } }).result.sessionId);
    expect(lines[4]).toMatchObject({ sender: 'client', json: { method: 'session/prompt', params: { sessionId: made } } });
    expect(lines.at(-1)).toMatchObject({ sender: 'server', json: { id: 2, result: { stopReason: 'end_turn' } } });
    expect(result.report.equal).toBe(true);
  });

  it('ends stdin where the recording did: an agent that answers only once its stdin has ended is not kept waiting for answers that come after it', async () => {
    const batchGolden = await batchRecorded();
    const [exchange] = (await loadReplayScript(batchGolden)).exchanges;
    const answersAt = exchange.messages.filter((m) => m.sender === 'server').map((m) => m.tOffsetMs);
    expect(answersAt).toHaveLength(2);
    expect(exchange.stdinEndedMs).not.toBeNull();
    expect(answersAt.every((at) => at >= exchange.stdinEndedMs!)).toBe(true);
    // No answer is waited for by the clock: a wait as long as the test's own time would fail it, were stdin kept open for the answers.
    const played = await redriveStdioExchange(exchange, { command: process.execPath, args: [ANSWERS_AT_END], out: dir.file('batch.db'), waitMs: 600_000 });
    expect(played).toMatchObject({ lines: 2 });
    expect(recordedLines(played.out)).toEqual(recordedLines(batchGolden));
    expect(diffRecordingFiles(batchGolden, played.out, { semantic: true }).equal).toBe(true);
  });

  it('paced (--timing recorded): each line, and the end of stdin, at its recorded offset from the agent\'s start on the clock', async () => {
    // The batch session with its lines moved to 0 and 1000 ms after the exchange's start, its stdin's end to 1500 ms and the answers after it.
    const batchGolden = await batchRecorded();
    const reader = RecordingReader.open(batchGolden);
    const lines = exportNdjsonText(reader).split('\n');
    reader.close();
    const exchangeLine = JSON.parse(lines.find((l) => l.startsWith('{"type":"exchange"'))!) as { startedMs: number };
    const moved = [0, 1000];
    let client = 0;
    const paced = dir.file('batch-paced.ndjson');
    writeFileSync(
      paced,
      lines
        .map((l) => (l.startsWith('{"type":"exchange"') ? JSON.stringify({ ...exchangeLine, stdinEndedMs: exchangeLine.startedMs + 1500 }) : l))
        .map((l) => (l.startsWith('{"type":"message"') ? JSON.stringify({ ...JSON.parse(l), tOffsetMs: exchangeLine.startedMs + (l.includes('"sender":"client"') ? moved[client++] : 1600) }) : l))
        .join('\n'),
    );
    const [exchange] = (await loadReplayScript(paced)).exchanges;
    const due = [...exchange.messages.filter((m) => m.sender === 'client').map((m) => m.tOffsetMs), exchange.stdinEndedMs!].map((t) => t - exchange.startedMs);
    const clock = new ManualClock();
    const played = redriveStdioExchange(exchange, { command: process.execPath, args: [ANSWERS_AT_END], out: dir.file('batch-paced.db'), pacing: { timing: { mode: 'recorded', speed: 1 }, clock }, waitMs: 600_000 });
    const stepped = await driveClock(clock, played);
    expect(stepped).toEqual(deadlinesOf(due).map((at) => expect.closeTo(at, 6)));
    expect(recordedLines((await played).out)).toEqual(recordedLines(batchGolden));
  });
});
