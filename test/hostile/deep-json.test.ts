/**
 * JSON nested 100,000 levels deep (a few hundred KB), sent by a peer: an SSE event, a JSON response,
 * a request body, WebSocket frames, a stdio line, an NDJSON socket line, and a state grown deep by
 * patches. JSON.parse takes it, but JSON.stringify and every recursive walk overflow the stack a few
 * thousand levels down. Each case drives the built CLI and checks that the process (and its
 * recording worker) survives, that the peer got the bytes unchanged, that the message is stored whole
 * with an unchecked verdict and a `json-too-deep` warning, and that a control message afterwards is
 * still recorded; then that every command reading such a recording (show, export, import, diff,
 * validate, view, replay) completes.
 *
 * The commands that read the recording and end (show, export, import, diff, validate) run in one
 * process (test/cli/cli-batch.ts), made by the first test that asks, each test checking its own
 * runs: each run is main() over the same deep messages, under the same stack limit as a process of
 * its own, so a walk that overflows fails the same way; the process's own start, paid once per file
 * instead of once per run, is what it saves. The batch also runs its first command as a process of
 * its own and compares what it printed.
 */
import { createServer, type Server } from 'node:http';
import { createConnection, createServer as createNetServer, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { RecordingReader, type MessageRow } from '../../src/store/recording-reader.js';
import { runBatch, type BatchRun } from '../cli/cli-batch.js';
import { runCli, type CliProcess, type CliResult } from '../cli/run-cli.js';
import { expectAbsent, recordingBytes } from '../record/pi-helpers.js';
import { spawnLines, BIN, type LineProcess } from '../stdio/stdio-helpers.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch, tempDir, type TempDir } from '../support/temp-dir.js';
import { wsOpen } from '../support/ws-client.js';
import { startCli as cli } from './cli-child.js';

useCleanups();

const LEVELS = 100_000;
const DEEP_ARRAY = '['.repeat(LEVELS) + ']'.repeat(LEVELS);
const DEEP_OBJECT = '{"a":'.repeat(LEVELS) + '1' + '}'.repeat(LEVELS);
/** A Pi session env value: never stored, and found if the server echoes it. */
const SECRET = 'deep-env-secret-5e6f7a8b9c0d1e2f';

const RUN_INPUT = '{"threadId":"t1","runId":"r1","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}';
const EVENTS = {
  started: '{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}',
  snapshot: `{"type":"STATE_SNAPSHOT","snapshot":${DEEP_OBJECT}}`,
  custom: `{"type":"CUSTOM","name":"deep","value":${DEEP_ARRAY}}`,
  finished: '{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}',
};
/** A RunAgentInput whose state is deep, for run r2 on thread t1. */
const DEEP_INPUT = `{"threadId":"t1","runId":"r2","state":{"deep":${DEEP_ARRAY}},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`;
const SSE_BODY = Object.values(EVENTS).map((e) => `data: ${e}\n\n`).join('');
const SESSION_BODY = `{"spec":{"cwd":"/w","env":{"TOKEN":"${SECRET}","NESTED":${DEEP_ARRAY}}},"labels":${DEEP_OBJECT}}`;
const SESSION_ANSWER = `{"leak":"${SECRET}","deep":${DEEP_OBJECT}}`;

// One recording serves the whole file, so its folder goes after the last test.
let sharedDir: TempDir | undefined;
afterAll(() => sharedDir?.cleanup());

/** Still running, and the recording worker never stopped; then SIGINT and a clean exit. */
async function stop(child: CliProcess): Promise<void> {
  expect(child.child.exitCode, child.stderr()).toBeNull();
  expect(child.stderr()).not.toMatch(/recording stopped|RangeError|call stack/i);
  child.child.kill('SIGINT');
  expect(await child.exited).toEqual({ code: 0, signal: null });
  expect(child.stderr()).not.toMatch(/recording stopped|RangeError|call stack/i);
}

async function linesProcessStop(proc: LineProcess): Promise<void> {
  expect(proc.child.exitCode, proc.stderr()).toBeNull();
  proc.child.kill('SIGTERM');
  await proc.exited;
  expect(proc.stderr()).not.toMatch(/recording stopped|RangeError|call stack/i);
}

function listen(server: Server | ReturnType<typeof createNetServer>, where: number | string = 0): Promise<void> {
  return new Promise((resolve) => (typeof where === 'number' ? server.listen(where, '127.0.0.1', resolve) : server.listen(where, resolve)));
}

/** The upstream: an AG-UI run, the Pi session API, an echo, a WebSocket that answers with deep frames, and a control page. */
async function upstream(): Promise<{ url: string; bodies: Map<string, string>; frames: string[] }> {
  const bodies = new Map<string, string>();
  const frames: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.set(`${req.method} ${req.url}`, body);
      if (req.url === '/agent') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(SSE_BODY);
      } else if (req.url === '/v1/session') {
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      } else if (req.url!.startsWith('/v1/session/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(SESSION_ANSWER);
      } else if (req.url === '/echo') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ bytes: Buffer.byteLength(body) }));
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }
    });
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) =>
    ws.on('message', (data) => {
      frames.push(String(data));
      ws.send(String(data) === 'control' ? '{"type":"ack"}' : DEEP_ARRAY);
    }),
  );
  await listen(server);
  closeServerOnCleanup(server, wss);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, bodies, frames };
}

interface Recorded {
  dir: string;
  file: string;
}

let recorded: Promise<Recorded> | undefined;
let reads: Promise<DeepReads> | undefined;

/** The deep traffic recorded once through `proxy record` (the record test checks it; the readers use it). */
function deepRecording(): Promise<Recorded> {
  return (recorded ??= recordDeepTraffic());
}

/** The files the reading commands write or read beside the deep recording. */
interface ReadFiles {
  /** The recording exported as NDJSON (the export test re-imports it, diff compares with it). */
  first: string;
  imported: string;
  /** The imported copy exported again. */
  second: string;
  /** validate's three files of deep messages: SSE, JSON lines, a JSON array. */
  inputs: string[];
}

/** What each reading command printed, by the name each test asks for it by. */
type DeepReads = ReadFiles & { results: Map<string, CliResult> };

/**
 * Every reading command on the deep recording that does not need another's output checked first, in
 * one batch, run once for the file (the first test that asks); the first run (`show`) also as a process
 * of its own. In order: the export is written before the import and the diffs read it.
 */
function deepReads(): Promise<DeepReads> {
  return (reads ??= deepRecording().then(async ({ file, dir }) => {
    const files: ReadFiles = { first: join(dir, 'first.ndjson'), imported: join(dir, 'imported.db'), second: join(dir, 'second.ndjson'), inputs: validateInputs(dir) };
    const runs: Array<[string, BatchRun]> = [
      ['show', ['show', file]],
      ['show --exchange 1', ['show', file, '--exchange', '1']],
      ['show --exchange 5 --json', ['show', file, '--exchange', '5', '--json']],
      ['export', ['export', file, '--format', 'ndjson', '--out', files.first]],
      ['import', ['import', files.first, '--out', files.imported, '--overwrite']],
      ['export imported', ['export', files.imported, '--format', 'ndjson', '--out', files.second]],
      ['export --format har', ['export', file, '--format', 'har']],
      ['diff', { args: ['diff', file, files.first], env: { AGENT_PROXY_DIFF_WORKER: 'never' } }],
      ['diff --semantic in the worker', { args: ['diff', file, files.first, '--semantic', '--format', 'json'], env: { AGENT_PROXY_DIFF_WORKER: 'always' } }],
      ['validate', ['validate', file]],
      ...files.inputs.map((input): [string, BatchRun] => [`validate ${input}`, ['validate', input, '--json']]),
    ];
    const results = await runBatch(runs.map(([, run]) => run));
    return { ...files, results: new Map(runs.map(([name], at) => [name, results[at]])) };
  }));
}

/** The reading command `name`'s result, which ended with `code` and wrote nothing to stderr. */
function ended(read: DeepReads, name: string, code = 0): CliResult {
  const result = read.results.get(name);
  expect(result, name).toBeDefined();
  expect(result!.stderr, name).toBe('');
  expect(result!.code, name).toBe(code);
  return result!;
}

/** Files of deep messages for validate: the SSE body, JSON lines, and an AG-UI run whose input state is deep (the events are judged against the input's top). */
function validateInputs(dir: string): string[] {
  const sse = join(dir, 'events.sse');
  writeFileSync(sse, SSE_BODY);
  const lines = join(dir, 'lines.jsonl');
  writeFileSync(lines, `${DEEP_OBJECT}\n{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n${DEEP_ARRAY}\n`);
  const array = join(dir, 'array.json');
  const run = [`{"dir":"client","msg":${DEEP_INPUT}}`, EVENTS.started, '{"type":"STATE_DELTA","delta":[{"op":"add","path":"/note","value":"x"}]}', EVENTS.snapshot, EVENTS.finished];
  writeFileSync(array, `[${run.join(',')}]`);
  return [sse, lines, array];
}

async function recordDeepTraffic(): Promise<Recorded> {
  const up = await upstream();
  const dir = (sharedDir = tempDir('agent-proxy-deep-')).dir;
  const file = join(dir, 'deep.db');
  const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', file]);
  const proxy = /on (http:\/\/\S+)/.exec(await rec.waitForLine(/^listening on /))![1];
  const json = { 'content-type': 'application/json' };

  // An AG-UI run whose state snapshot and custom event nest 100,000 levels deep: forwarded byte for byte.
  const run = await fetch(`${proxy}/agent`, { method: 'POST', headers: { ...json, accept: 'text/event-stream' }, body: RUN_INPUT });
  expect(Buffer.from(await run.arrayBuffer()).equals(Buffer.from(SSE_BODY))).toBe(true);
  // A Pi session whose env holds a secret next to a deep value, and an answer that echoes the secret deep down.
  expect((await fetch(`${proxy}/v1/session`, { method: 'POST', headers: json, body: SESSION_BODY })).status).toBe(202);
  expectSameText(up.bodies.get('POST /v1/session') ?? '', SESSION_BODY, 'the session body upstream');
  expectSameText(await (await fetch(`${proxy}/v1/session/s1`)).text(), SESSION_ANSWER, 'the session answer');
  // A deep request body.
  expect(await (await fetch(`${proxy}/echo`, { method: 'POST', headers: json, body: DEEP_OBJECT })).json()).toEqual({ bytes: DEEP_OBJECT.length });
  expectSameText(up.bodies.get('POST /echo') ?? '', DEEP_OBJECT, 'the echo body upstream');
  // A deep frame each way, then a control frame on the same connection.
  const ws = await wsOpen(`${proxy.replace(/^http/, 'ws')}/ws`, []);
  ws.ws.send(DEEP_OBJECT);
  expectSameText((await ws.take(1))[0], DEEP_ARRAY, 'the deep frame');
  ws.ws.send('control');
  expect((await ws.take(2))[1]).toBe('{"type":"ack"}');
  ws.ws.close(1000);
  await ws.closed;
  expect(up.frames).toEqual([DEEP_OBJECT, 'control']);
  // The control request.
  expect(await (await fetch(`${proxy}/control`)).text()).toBe('ok');
  await stop(rec);
  return { dir, file };
}

/** Long texts compared without printing them whole when they differ. */
function expectSameText(actual: string | Buffer, expected: string, what: string): void {
  const text = Buffer.isBuffer(actual) ? actual.toString('utf8') : actual;
  if (text === expected) return;
  let at = 0;
  while (at < text.length && text[at] === expected[at]) at++;
  expect.fail(`${what}: ${text.length} characters where ${expected.length} were expected, first different at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`);
}

/** The message at `seq` of exchange `id`. */
function messageOf(file: string, id: number, seq: number): MessageRow {
  const reader = RecordingReader.open(file);
  try {
    const m = reader.messages(id).find((row) => row.seq === seq);
    expect(m, `exchange ${id} message ${seq}`).toBeDefined();
    return m!;
  } finally {
    reader.close();
  }
}

/** Stored whole, unchecked with the json-too-deep warning, its JSON kept as text. */
function expectTooDeep(m: MessageRow, json: string, raw = json): void {
  expectSameText(m.raw, raw, `message ${m.seq}'s raw bytes`);
  expect(m.json).toBeUndefined();
  expectSameText(m.deepJson ?? '', json, `message ${m.seq}'s JSON text`);
  expect(m.verdict.status).toBe('unchecked');
  expect(m.verdict.reason).toBe('not judged: nests deeper than 512 levels');
  expect(m.verdict.findings.map((f) => `${f.severity} ${f.rule}`)).toContain('warning json-too-deep');
}

// Each test drives 100,000-level messages through a whole command (the first records them for the
// rest): minutes of CPU on a loaded 2-core machine, so a deadline of 5 minutes each, not 2.
describe('hostile peers: deeply nested JSON', { timeout: 300_000 }, () => {
  it('record: deep SSE events, bodies and WebSocket frames are forwarded unchanged and stored whole, unchecked, with a json-too-deep warning', async () => {
    const { file } = await deepRecording();
    const reader = RecordingReader.open(file);
    try {
      const exchanges = reader.exchanges();
      expect(exchanges.map((e) => `${e.method} ${e.path} ${e.protocol} ${e.outcome}`)).toEqual([
        'POST /agent agui complete',
        'POST /v1/session pi-rest complete',
        'GET /v1/session/s1 pi-rest complete',
        'POST /echo null complete',
        'GET /ws null complete',
        'GET /control null complete',
      ]);
      const run = reader.messages(1);
      expect(run.map((m) => m.verdict.status)).toEqual(['valid', 'valid', 'unchecked', 'unchecked', 'valid']);
      expectTooDeep(run[2], EVENTS.snapshot, `data: ${EVENTS.snapshot}\n\n`);
      expectTooDeep(run[3], EVENTS.custom, `data: ${EVENTS.custom}\n\n`);
      // The run is judged on after them: RUN_FINISHED closes the run RUN_STARTED opened.
      expect(run[4].verdict.findings).toEqual([]);

      // Two values nested 100,000 deep would take more heap to parse than the recorder lets one message
      // take: the body is stored unparsed, yet each env value is replaced (the deep one whole) and
      // tracked for leaks; the deep labels stay as they were.
      const [session] = reader.messages(2);
      expectSameText(session.raw, `{"spec":{"cwd":"/w","env":{"TOKEN":"<redacted>","NESTED":"<redacted>"}},"labels":${DEEP_OBJECT}}`, 'the stored session body');
      expect(session.verdict.findings.map((f) => f.rule)).toEqual(['complex-message']);
      // The answer that echoes it: a secret-leak error even this deep, and the value replaced where it is stored.
      const [answer] = reader.messages(3);
      expect(answer.verdict.status).toBe('invalid');
      expect(answer.verdict.findings.map((f) => `${f.severity} ${f.rule} ${f.pointer}`)).toEqual(['warning json-too-deep ', 'error secret-leak /leak']);
      expectTooDeep({ ...answer, verdict: { ...answer.verdict, status: 'unchecked' } }, SESSION_ANSWER.replace(SECRET, '<redacted>'));
      expectAbsent(recordingBytes(file), SECRET, 'the env value');

      expectTooDeep(reader.messages(4)[0], DEEP_OBJECT);
      const frames = reader.messages(5);
      expectTooDeep(frames[0], DEEP_OBJECT);
      expectTooDeep(frames[1], DEEP_ARRAY);
      expect(frames.slice(2, 4).map((m) => m.raw.toString())).toEqual(['control', '{"type":"ack"}']);
      expect(reader.messages(6).map((m) => m.raw.toString())).toEqual(['ok']);
    } finally {
      reader.close();
    }
  });

  it('show, show --exchange and --json print such a recording, the deep JSON written out whole', async () => {
    const read = await deepReads();
    const summary = ended(read, 'show');
    expect(summary.stdout).toContain('6 exchanges, 17 messages');

    const listed = read.results.get('show --exchange 1')!;
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toContain('← STATE_SNAPSHOT unchecked (not judged: nests deeper than 512 levels)');
    expect(listed.stdout).toContain('warning json-too-deep (whole message): the message nests arrays and objects deeper than 512 levels');

    const text = ended(read, 'show --exchange 5 --json').stdout.trimEnd();
    expect(text.startsWith('{"exchange":{"id":5,')).toBe(true);
    expect(text).toContain(`"json":${DEEP_OBJECT},"status":"unchecked"`);
    expect(text).toContain(`"json":${DEEP_ARRAY},"status":"unchecked"`);
    expect((JSON.parse(text) as { messages: unknown[] }).messages).toHaveLength(6);
  });

  it('export --format ndjson → import → export is byte-identical; export --format har completes', async () => {
    const read = await deepReads();
    const { first, imported, second } = read;
    for (const name of ['export', 'import', 'export imported']) ended(read, name);
    const exported = readFileSync(first);
    expect(readFileSync(second).equals(exported)).toBe(true);
    const lines = exported.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 6 + 17);
    // The CUSTOM event and the frame back: each line carries the raw bytes and the JSON, last.
    expect(lines.filter((l) => l.endsWith(`"json":${DEEP_ARRAY}}`) || l.endsWith(`"value":${DEEP_ARRAY}}}`))).toHaveLength(2);
    // The imported copy reads back the same.
    expectSameText(messageOf(imported, 5, 1).deepJson ?? '', DEEP_OBJECT, 'the imported frame');

    const har = ended(read, 'export --format har');
    expect(har.stdout).toContain(JSON.stringify(DEEP_OBJECT).slice(1, -1));
  });

  // ~5 s of CPU (three diffs over 100,000-level messages; 26 s before they compared deep texts
  // without writing them again): on a loaded 2-core machine it took over 120 s.
  it('diff (plain, --semantic, and the worker scan) compares deep messages by their JSON text', async () => {
    const { file, dir } = await deepRecording();
    const read = await deepReads();
    const ndjson = read.first;
    ended(read, 'export');
    // A deep message that differs is one changed message, not a crash.
    const changed = join(dir, 'changed.ndjson');
    // The frame back's line (its JSON last) made one level deeper. Found by its end: searching the text
    // for a 200 KB pattern of brackets takes V8 seconds.
    const lines = readFileSync(ndjson, 'utf8').split('\n');
    const frameBack = lines.findIndex((l) => l.endsWith(`"json":${DEEP_ARRAY}}`));
    expect(frameBack).toBeGreaterThan(0);
    lines[frameBack] = `${lines[frameBack].slice(0, -DEEP_ARRAY.length - 1)}[${DEEP_ARRAY}]}`;
    writeFileSync(changed, lines.join('\n'));
    // The recording and its export, in the batch: plain in this thread, semantic in the diff worker.
    for (const name of ['diff', 'diff --semantic in the worker']) expect(ended(read, name).stdout, name).toMatch(/equal after normalization|"equal": true/);
    const diff = await runCli(['diff', file, changed]);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/1 changed/);
  });

  it('validate judges such a recording, and files of deep messages, one unchecked line per deep message', async () => {
    const read = await deepReads();
    const { inputs } = read;
    const recording = read.results.get('validate')!;
    const files = inputs.map((input) => read.results.get(`validate ${input}`)!);
    expect(recording.stderr).toBe('');
    // The session's answer ({"ok":true}, no envelope) is invalid, as record judged it by Pi REST.
    expect(recording.code).toBe(1);
    expect(recording.stdout).toMatch(/#2\.2 {2}← response 202 {2}invalid\n/);
    // Every deep message, as record judged it (its pipeline): the run's two deep events, the session
    // answer, the deep body and the two deep frames, the last three of no protocol.
    expect(recording.stdout.match(/warning json-too-deep/g)).toHaveLength(6);
    expect(recording.stdout).toMatch(/← STATE_SNAPSHOT {2}unchecked {2}\(not judged: nests deeper than 512 levels\)/);

    type Report = { messages: Array<{ label: string; verdict: { reason?: string; findings: Array<{ rule: string; message: string }> } }> };
    const reports: Report[] = [];
    for (const [at, input] of inputs.entries()) {
      const result = files[at];
      expect(result.stderr, input).toBe('');
      const report = JSON.parse(result.stdout) as Report;
      reports.push(report);
      const deep = report.messages.filter((m) => m.verdict.reason === 'not judged: nests deeper than 512 levels');
      expect(deep.length, input).toBe(2);
      for (const m of deep) expect(m.verdict.findings.map((f) => f.rule)).toContain('json-too-deep');
    }
    // RUN_STARTED is on the input's thread but not its run: the input was followed, not skipped.
    expect(reports[2].messages.map((m) => `${m.label} ${m.verdict.findings.map((f) => f.rule).join(',')}`)).toEqual([
      'object json-too-deep',
      'RUN_STARTED run-id-differs-from-input',
      'STATE_DELTA ',
      'STATE_SNAPSHOT json-too-deep',
      'RUN_FINISHED ',
    ]);
  });

  it('view: the inspector API lists, shows and walks deep messages as text', async () => {
    const { file } = await deepRecording();
    const view = cli(['view', file, '--listen', '0']);
    const base = /on (http:\/\/\S+)/.exec(await view.waitForLine(/^inspector on /))![1];
    const get = async (path: string) => {
      const res = await fetch(`${base}/api/${path}`);
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    const page = await get('exchanges/1/messages');
    expect((page.items as Array<{ label: string }>).map((m) => m.label)).toEqual(['RunAgentInput', 'RUN_STARTED', 'STATE_SNAPSHOT', 'CUSTOM', 'RUN_FINISHED']);
    const snapshot = await get('messages/1/3');
    expect(snapshot.label).toBe('STATE_SNAPSHOT');
    expect(snapshot.json).toBeUndefined();
    expect(snapshot.text).toBe(`data: ${EVENTS.snapshot}\n\n`);
    expect(snapshot.reason).toBe('not judged: nests deeper than 512 levels');
    expect((await get('exchanges/1/state')).state).toEqual({});
    expect((await get('exchanges/1/run')).outcome).toMatchObject({ status: 'finished' });
    expect(((await get('exchanges/5/messages')).items as unknown[]).length).toBe(6);
    expectSameText(String((await get('messages/5/2')).text), DEEP_ARRAY, 'the frame as the inspector shows it');
    expect(await get('exchanges?q=control')).toHaveLength(1);
    expect(view.child.exitCode).toBeNull();
  });

  it('replay serves deep recorded answers byte for byte and matches deep requests byte for byte', async () => {
    const { file } = await deepRecording();
    const replay = cli(['replay', file, '--listen', '0', '--timing', 'none']);
    const base = /^listening on (\S+)$/.exec(await replay.waitForLine(/^listening on /))![1];
    const json = { 'content-type': 'application/json' };
    const run = await fetch(`${base}/agent`, { method: 'POST', headers: json, body: RUN_INPUT });
    expect(Buffer.from(await run.arrayBuffer()).equals(Buffer.from(SSE_BODY))).toBe(true);
    const answer = await fetch(`${base}/v1/session/s1`);
    expectSameText(await answer.text(), SESSION_ANSWER.replace(SECRET, '<redacted>'), 'the replayed session answer');
    const echo = await fetch(`${base}/echo`, { method: 'POST', headers: json, body: DEEP_OBJECT });
    expect(await echo.json()).toEqual({ bytes: DEEP_OBJECT.length });
    const ws = await wsOpen(`${base.replace(/^http/, 'ws')}/ws`, []);
    ws.ws.send(DEEP_OBJECT);
    expectSameText((await ws.take(1))[0], DEEP_ARRAY, 'the replayed frame');
    ws.ws.terminate();
    // The control request.
    expect(await (await fetch(`${base}/control`)).text()).toBe('ok');
    expect(replay.child.exitCode, replay.stderr()).toBeNull();
    replay.child.kill('SIGINT');
    expect(await replay.exited).toEqual({ code: 0, signal: null });
    expect(replay.stderr()).toBe('');
  });

  it('replay --on-miss passthrough: deep misses are forwarded and appended, and the replay goes on', async () => {
    const { dir, file } = await deepRecording();
    const copy = join(dir, 'passthrough.db');
    writeFileSync(copy, readFileSync(file));
    const up = await upstream();
    const replay = cli(['replay', copy, '--listen', '0', '--timing', 'none', '--on-miss', 'passthrough', '--target', up.url]);
    const base = /^listening on (\S+)$/.exec(await replay.waitForLine(/^listening on /))![1];
    const json = { 'content-type': 'application/json' };
    // The same env secret and deep values, under another session: a miss, recorded in the replay's own thread.
    const session = SESSION_BODY.replace('"cwd":"/w"', '"cwd":"/other"');
    expect((await fetch(`${base}/v1/session`, { method: 'POST', headers: json, body: session })).status).toBe(202);
    expectSameText(up.bodies.get('POST /v1/session') ?? '', session, 'the forwarded session body');
    expectSameText(await (await fetch(`${base}/v1/session/s2`)).text(), SESSION_ANSWER, 'the forwarded answer');
    expect(await (await fetch(`${base}/control`)).text()).toBe('ok');
    expect(replay.child.exitCode, replay.stderr()).toBeNull();
    replay.child.kill('SIGINT');
    expect(await replay.exited).toEqual({ code: 0, signal: null });
    expect(replay.stderr()).toBe('');

    expectAbsent(recordingBytes(copy), SECRET, 'the env value');
    const reader = RecordingReader.open(copy);
    try {
      const appended = reader.exchanges().slice(6);
      expect(appended.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /v1/session', 'GET /v1/session/s2']);
      const [answer] = reader.messages(appended[1].id);
      expect(answer.verdict.findings.map((f) => `${f.severity} ${f.rule}`)).toEqual(['warning json-too-deep', 'error secret-leak']);
      expectSameText(answer.deepJson ?? '', SESSION_ANSWER.replace(SECRET, '<redacted>'), 'the appended answer');
    } finally {
      reader.close();
    }
  });

  it('record --stdio: a deep line each way is forwarded and stored whole, and the next lines are judged', async () => {
    const dir = scratch('agent-proxy-deep-').dir;
    const agent = join(dir, 'agent.mjs');
    // A Pi RPC agent: answers every command; `get_state` with deep data.
    writeFileSync(
      agent,
      `import { createInterface } from 'node:readline';
const deep = ${JSON.stringify(DEEP_ARRAY)};
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  const data = command.type === 'get_state' ? deep : '{}';
  process.stdout.write('{"id":' + JSON.stringify(command.id) + ',"type":"response","command":"' + command.type + '","success":true,"data":' + data + '}\\n');
}
`,
    );
    const out = join(dir, 'stdio.db');
    const proc = spawnLines('node', [BIN, 'record', '--stdio', '--protocol', 'pi-rpc', '--out', out, '--', process.execPath, agent]);
    onCleanup(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    const deepCommand = `{"id":"c1","type":"prompt","message":"hi","images":${DEEP_ARRAY}}`;
    // One at a time, so that the recording holds each command before its answer.
    proc.send(deepCommand + '\n');
    await proc.waitForLines(1);
    proc.send('{"id":"c2","type":"get_state"}\n');
    await proc.waitForLines(2);
    proc.send('{"id":"c3","type":"get_messages"}\n');
    const lines = await proc.waitForLines(3);
    const deepAnswer = `{"id":"c2","type":"response","command":"get_state","success":true,"data":${DEEP_ARRAY}}`;
    expect(lines).toEqual([
      '{"id":"c1","type":"response","command":"prompt","success":true,"data":{}}',
      deepAnswer,
      '{"id":"c3","type":"response","command":"get_messages","success":true,"data":{}}',
    ]);
    proc.child.stdin.end();
    expect((await proc.exited).code).toBe(0);
    expect(proc.stderr()).not.toMatch(/recording stopped|RangeError|call stack/i);

    const reader = RecordingReader.open(out);
    try {
      const messages = reader.messages(1).filter((m) => m.channel !== 'stderr');
      expectTooDeep(messages[0], deepCommand, deepCommand + '\n');
      expectTooDeep(messages[3], deepAnswer, deepAnswer + '\n');
      // The control command after them is judged as usual.
      expect(messages.map((m) => m.verdict.status)).toEqual(['unchecked', 'valid', 'valid', 'unchecked', 'valid', 'valid']);
    } finally {
      reader.close();
    }
  });

  it('record --ndjson: a deep line from the daemon is forwarded and stored whole, and the next lines are recorded', async () => {
    const dir = scratch('agent-proxy-deep-').dir;
    const daemonSocket = join(dir, 'daemon.sock');
    const deepLine = `{"kind":"event","protocolVersion":"1.0.0","hostInstanceId":"h1","requestId":"r1","event":"deep","data":${DEEP_OBJECT}}`;
    const sockets = new Set<Socket>();
    const daemon = createNetServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      let pending = '';
      socket.setEncoding('utf8').on('data', (d: string) => {
        pending += d;
        for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
          const line = pending.slice(0, at);
          pending = pending.slice(at + 1);
          const { requestId } = JSON.parse(line) as { requestId: string };
          socket.write(requestId === 'r1' ? `${deepLine}\n` : `{"kind":"response","protocolVersion":"1.0.0","hostInstanceId":"h1","requestId":"${requestId}","ok":true}\n`);
        }
      });
    });
    await listen(daemon, daemonSocket);
    onCleanup(() => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), daemon.close(() => resolve()))));
    const out = join(dir, 'ndjson.db');
    const proxySocket = join(dir, 'proxy.sock');
    const proc = spawnLines('node', [BIN, 'record', '--ndjson', '--target', `unix:${daemonSocket}`, '--listen', `unix:${proxySocket}`, '--out', out]);
    onCleanup(() => {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    });
    await proc.waitForLines(1);

    const client = createConnection({ path: proxySocket });
    let received = '';
    const waiters: Array<() => void> = [];
    client.setEncoding('utf8').on('data', (d: string) => {
      received += d;
      waiters.splice(0).forEach((w) => w());
    });
    const lineCount = (n: number) => new Promise<void>((resolve) => {
      const check = () => (received.split('\n').length > n ? resolve() : waiters.push(check));
      check();
    });
    await new Promise<void>((resolve) => client.once('connect', resolve));
    client.write(`{"operation":"deep","protocolVersion":"1.0.0","requestId":"r1","payload":${DEEP_ARRAY}}\n`);
    await lineCount(1);
    client.write('{"operation":"status","protocolVersion":"1.0.0","requestId":"r2"}\n');
    await lineCount(2);
    expectSameText(received.split('\n')[0], deepLine, 'the deep line');
    client.end();
    await new Promise<void>((resolve) => client.once('close', () => resolve()));
    await linesProcessStop(proc);

    const reader = RecordingReader.open(out);
    try {
      const [exchange] = reader.exchanges();
      const messages = reader.messages(exchange.id);
      expect(messages).toHaveLength(4);
      expectTooDeep(messages[0], `{"operation":"deep","protocolVersion":"1.0.0","requestId":"r1","payload":${DEEP_ARRAY}}`, `{"operation":"deep","protocolVersion":"1.0.0","requestId":"r1","payload":${DEEP_ARRAY}}\n`);
      expectTooDeep(messages[1], deepLine, deepLine + '\n');
      expect(messages[3].raw.toString()).toContain('"requestId":"r2"');
    } finally {
      reader.close();
    }
  });

  it('AG-UI: a state that patches make deep, tool call arguments that join into deep JSON, and a deep input are not walked: record, diff --semantic and view survive them', async () => {
    // Each delta adds a value 400 levels deep at the bottom of the state: no one event is deep, the state soon is.
    const level = 400;
    const deltas = Array.from({ length: 30 }, (_, i) => {
      const path = '/a'.repeat(level * i + 1);
      return `{"type":"STATE_DELTA","delta":[{"op":"add","path":"${path}","value":${'{"a":'.repeat(level)}1${'}'.repeat(level)}}]}`;
    });
    // Arguments streamed in two harmless strings that join into JSON 100,000 levels deep.
    const toolCall = [
      '{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"f"}',
      `{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"${'['.repeat(LEVELS)}"}`,
      `{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"${']'.repeat(LEVELS)}"}`,
      '{"type":"TOOL_CALL_END","toolCallId":"tc1"}',
    ];
    const body = [EVENTS.started, '{"type":"STATE_SNAPSHOT","snapshot":{}}', ...deltas, ...toolCall, EVENTS.finished].map((e) => `data: ${e}\n\n`).join('');
    // A run whose input state is deep: the run is still judged against the input's ids, and its patch applies.
    const deepInput = `{"threadId":"t2","runId":"r2","state":{"deep":${DEEP_ARRAY}},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`;
    const secondRun = ['{"type":"RUN_STARTED","threadId":"t2","runId":"r2"}', '{"type":"STATE_DELTA","delta":[{"op":"add","path":"/note","value":"x"}]}', '{"type":"RUN_FINISHED","threadId":"t2","runId":"r2"}']
      .map((e) => `data: ${e}\n\n`)
      .join('');
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/agent' || req.url === '/agent-input') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(req.url === '/agent' ? body : secondRun);
        } else res.end('ok');
      });
    });
    await listen(server);
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const dir = scratch('agent-proxy-deep-').dir;
    const out = join(dir, 'state.db');
    const rec = cli(['record', '--target', `http://127.0.0.1:${(server.address() as { port: number }).port}`, '--listen', '0', '--out', out]);
    const proxy = /on (http:\/\/\S+)/.exec(await rec.waitForLine(/^listening on /))![1];
    const json = { 'content-type': 'application/json' };
    expectSameText(await (await fetch(`${proxy}/agent`, { method: 'POST', headers: json, body: RUN_INPUT })).text(), body, 'the run');
    expectSameText(await (await fetch(`${proxy}/agent-input`, { method: 'POST', headers: json, body: deepInput })).text(), secondRun, 'the second run');
    expect(await (await fetch(`${proxy}/control`)).text()).toBe('ok');
    await stop(rec);

    const reader = RecordingReader.open(out);
    try {
      const messages = reader.messages(1);
      // The first delta makes the state 401 levels deep; the next would make it 801.
      expect(messages[3].verdict.findings).toEqual([]);
      expect(messages[4].verdict.findings).toEqual([
        expect.objectContaining({ rule: 'state-patch-failed', pointer: '/delta', message: expect.stringContaining('would nest deeper than 512 levels') }),
      ]);
      const [input, ...events] = reader.messages(2);
      expectTooDeep(input, deepInput);
      expect(events.map((m) => `${m.verdict.status} ${m.verdict.findings.length}`)).toEqual(['valid 0', 'valid 0', 'valid 0']);
      expect(reader.exchanges().map((e) => e.protocol)).toEqual(['agui', 'agui', null]);
    } finally {
      reader.close();
    }
    const diff = await runCli(['diff', out, out, '--semantic']);
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);

    const view = cli(['view', out, '--listen', '0']);
    const base = /on (http:\/\/\S+)/.exec(await view.waitForLine(/^inspector on /))![1];
    const state = await fetch(`${base}/api/exchanges/1/state`);
    expect(state.status).toBe(200);
    expect(((await state.json()) as { applied: number }).applied).toBe(31);
    const run = await fetch(`${base}/api/exchanges/1/run`);
    expect(run.status).toBe(200);
    expect((await fetch(`${base}/api/exchanges/2/state`)).status).toBe(200);
  });
});
