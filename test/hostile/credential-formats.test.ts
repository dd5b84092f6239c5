/**
 * Well-known credential formats (an OpenAI or Anthropic key, GitHub, AWS, Slack and Google tokens, a
 * JWT, a PEM private key) planted everywhere an agent might send one: a JSON body sent as text/plain
 * (what fetch() sends for a string), an SSE event's text, a WebSocket frame, a header, a URL query
 * and the lines of a stdio agent, through the real recorder (the built CLI). The proxy forwards every
 * byte as sent; none of the values reaches the .db, its WAL, the NDJSON and HAR exports, `show`,
 * `findings` or any inspector route; the findings say what was found and where, never the value.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { importNdjsonFile } from '../../src/store/ndjson-import.js';
import { startInspector } from '../../src/ui/server/inspector-server.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { runBatch } from '../cli/cli-batch.js';
import { closeServerOnCleanup, onCleanup, useCleanups } from '../support/cleanups.js';
import { CREDENTIAL_FORMATS } from '../../src/core/credential-formats.js';
import { NEEDLES, ONE_LINE, PLANTED } from '../support/credentials.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';
import { recordingBytes } from '../record/pi-helpers.js';
import { BIN, spawnLines } from '../stdio/stdio-helpers.js';
import { startCli as cli } from './cli-child.js';

useCleanups();

const ALL = Object.values(PLANTED);
const LINE = ONE_LINE.join(' ');

function expectNone(text: string | Buffer, where: string): void {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  expect(bytes.length, `${where} is empty`).toBeGreaterThan(0);
  for (const needle of NEEDLES) {
    expect(bytes.indexOf(Buffer.from(needle)), `${needle.slice(0, 24)}… appears in ${where}`).toBe(-1);
    expect(bytes.indexOf(Buffer.from(needle, 'utf16le')), `${needle.slice(0, 24)}… appears in ${where} (UTF-16)`).toBe(-1);
  }
}

/** An upstream that keeps what it got, and sends every credential back: in a JSON body, SSE events and WebSocket echoes. */
async function upstream(): Promise<{ url: string; received: Array<{ url: string; rawHeaders: string[]; body: string }>; frames: string[] }> {
  const received: Array<{ url: string; rawHeaders: string[]; body: string }> = [];
  const frames: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url!, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString() });
      if (req.url!.startsWith('/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: ALL.join(' ') })}\n\n`);
        res.end(`data: plain text ${LINE}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ echo: ALL }));
      }
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data) => (frames.push(String(data)), ws.send(String(data))))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeServerOnCleanup(server, wss);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, received, frames };
}

function wsEcho(url: string, frame: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('open', () => ws.send(frame));
    ws.on('message', (data) => {
      ws.close(1000);
      resolve(String(data));
    });
    ws.on('error', reject);
  });
}

/** Everything every reader of a recording says of it: both exports, show (each exchange, text and JSON), findings, and every inspector route. */
async function everySink(file: string): Promise<{ texts: Array<[where: string, text: string]>; findings: Found[] }> {
  const texts: Array<[string, string]> = [];
  const kept = (args: string[], result: CliResult) => {
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    texts.push([args.join(' '), result.stdout + result.stderr]);
    return result.stdout;
  };
  const summaryArgs = ['show', '--json', file];
  const summary = JSON.parse(kept(summaryArgs, await runCli(summaryArgs))) as { exchanges: Array<{ id: number }> };
  const ids = summary.exchanges.map((e) => e.id);
  // The other readers in one batch of CLI runs (test/cli/cli-batch.ts; the first also as a process of its own).
  const runs = [
    ['export', file, '--format', 'ndjson'],
    ['export', file, '--format', 'har'],
    ['findings', '--json', file],
    ['findings', file],
    ['show', file],
    // Text and JSON show the same messages: one exchange in text is enough to cover its printer.
    ['show', '--exchange', String(ids[0]), file],
    ...ids.map((id) => ['show', '--json', '--exchange', String(id), file]),
  ];
  const printed = (await runBatch(runs)).map((result, i) => kept(runs[i], result));
  const findings = (JSON.parse(printed[2]) as { findings: Found[] }).findings.filter((f) => f.rule === 'secret-in-traffic');
  const inspector = await startInspector({ recording: file, listen: 0 });
  try {
    const get = async (path: string) => {
      const res = await fetch(inspector.url + path);
      const text = await res.text();
      texts.push([`inspector ${path}`, text]);
      return res.status === 200 && path.startsWith('/api/') ? (JSON.parse(text) as any) : undefined;
    };
    await get('/');
    await get('/api/recording');
    await get('/api/exchanges');
    await get(`/api/exchanges?q=${encodeURIComponent('redacted')}`);
    for (const id of ids) {
      await get(`/api/exchanges/${id}`);
      for (const view of ['state', 'run', 'session']) await get(`/api/exchanges/${id}/${view}`);
      const page = await get(`/api/exchanges/${id}/messages?limit=500`);
      for (const m of page.items as Array<{ seq: number }>) await get(`/api/messages/${id}/${m.seq}`);
    }
  } finally {
    await inspector.close();
  }
  return { texts, findings };
}

/** A finding as `findings --json` lists it. */
interface Found {
  exchange: number;
  seq: number;
  rule: string;
  pointer: string;
  message: string;
  severity: string;
}

describe('well-known credentials in traffic: forwarded as sent, stored nowhere', () => {
  it('through the HTTP recorder: a text/plain JSON body, a header, a URL query, SSE events, WebSocket frames and a JSON answer', async () => {
    const up = await upstream();
    const out = scratch('agent-proxy-credentials-').file('formats.db');
    const rec = cli(['record', '--target', up.url, '--listen', '0', '--out', out, '--json']);
    const proxy = (JSON.parse(await rec.waitForLine(/"event":"listening"/)) as { url: string }).url;

    // fetch() with a string body sends text/plain;charset=UTF-8.
    const body = JSON.stringify({ prompt: 'use these', keys: ALL });
    const query = `q=${encodeURIComponent(LINE)}&k=${PLANTED['google-api-key']}`;
    const posted = await fetch(`${proxy}/chat?${query}`, { method: 'POST', headers: { 'x-agent-keys': LINE }, body });
    expect(await posted.json()).toEqual({ echo: ALL });
    const events = await fetch(`${proxy}/events?token=${PLANTED.jwt}`);
    expect(await events.text()).toBe(`data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: ALL.join(' ') })}\n\ndata: plain text ${LINE}\n\n`);
    const frame = JSON.stringify({ type: 'hello', keys: ALL });
    expect(await wsEcho(`${proxy.replace(/^http:/, 'ws:')}/ws`, frame)).toBe(frame);

    // Forwarded unchanged: the upstream got every byte as sent.
    expect(up.received.map((r) => r.url)).toEqual([`/chat?${query}`, `/events?token=${PLANTED.jwt}`]);
    expect(up.received[0].body).toBe(body);
    expect(up.received[0].rawHeaders).toEqual(expect.arrayContaining(['x-agent-keys', LINE]));
    expect(up.frames).toEqual([frame]);

    // The .db and its WAL while the recorder still runs, once it holds all three exchanges.
    await waitFor(() => {
      const reader = RecordingReader.open(out);
      try {
        return reader.exchanges().filter((e) => e.outcome !== null).length === 3;
      } finally {
        reader.close();
      }
    }, 'the three exchanges to be stored');
    expect(readdirSync(scratchDirOf(out))).toContain('formats.db-wal');
    expectNone(recordingBytes(out), 'the .db and its WAL, while recording');
    rec.child.kill('SIGINT');
    expect(await rec.exited).toEqual({ code: 0, signal: null });
    expectNone(recordingBytes(out), 'the closed .db');
    expectNone(rec.stdout() + rec.stderr() + ' ', 'the output of record');

    // Stored redacted, the rest as it travelled.
    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    const [chat, sse, ws] = reader.exchanges();
    expect(chat.query).toBe(`q=${ONE_LINE.map(() => '%3Credacted%3E').join('%20')}&k=%3Credacted%3E`);
    expect(chat.requestHeaders!['x-agent-keys']).toBe(ONE_LINE.map(() => '<redacted>').join(' '));
    // Not parsed (text/plain), but scrubbed all the same.
    expect(reader.messages(chat.id)[0].raw.toString()).toBe(JSON.stringify({ prompt: 'use these', keys: ALL.map(() => '<redacted>') }));
    expect(reader.messages(sse.id).map((m) => m.raw.toString())).toEqual([
      `data: ${JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: ALL.map(() => '<redacted>').join(' ') })}\n\n`,
      `data: plain text ${ONE_LINE.map(() => '<redacted>').join(' ')}\n\n`,
    ]);
    expect(reader.messages(ws.id).filter((m) => m.channel === 'text').map((m) => m.json)).toEqual([
      { type: 'hello', keys: ALL.map(() => '<redacted>') },
      { type: 'hello', keys: ALL.map(() => '<redacted>') },
    ]);

    // What each reader shows holds none of them.
    const { texts, findings } = await everySink(out);
    for (const [where, text] of texts) expectNone(text + ' ', where);

    // The findings say which format, where, in which message: never the value.
    expect(findings.every((f) => f.severity === 'warning')).toBe(true);
    const places = new Set(findings.map((f) => `#${f.exchange}.${f.seq} ${f.message.replace(/^.* is in /, '').replace(/; it was .*$/, '')}`));
    for (const place of [
      "#1.1 request header 'x-agent-keys'",
      '#1.1 the request URL',
      '#1.1 this message at /keys/0',
      '#1.1 this message at /keys/11',
      '#1.2 this message at /echo/3',
      '#2.1 this message at /delta',
      '#2.2 this message',
      '#3.1 this message at /keys/4',
      '#3.2 this message at /keys/4',
    ]) {
      expect(places, place).toContain(place);
    }
    for (const format of Object.values(CREDENTIAL_FORMATS)) expect(findings.some((f) => f.message.includes(format.name)), format.id).toBe(true);
  });

  it('through a stdio agent recorded by fixture into NDJSON, and through import', async () => {
    const dir = scratch('agent-proxy-credentials-');
    const recording = dir.file('agent.ndjson');
    // An agent that logs every credential on stderr and echoes each request's params.
    const agent = `require('readline').createInterface({ input: process.stdin }).on('line', (l) => { const m = JSON.parse(l); process.stderr.write('debug: ${LINE}\\n'); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: m.params }) + '\\n'); });`;
    const proc = spawnLines('node', [BIN, 'fixture', recording, '--stdio', '--protocol', 'acp', '--quiet', '--', process.execPath, '-e', agent], { AGENT_PROXY_MODE: 'record' });
    onCleanup(() => void proc.child.kill('SIGKILL'));
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { keys: ALL } });
    proc.send(request + '\n');
    const [answer] = await proc.waitForLines(1);
    expect(JSON.parse(answer!)).toEqual({ jsonrpc: '2.0', id: 1, result: { keys: ALL } });
    proc.child.stdin.end();
    expect((await within(proc.exited, 'the fixture to exit')).code).toBe(0);
    expect(readdirSync(dir.dir)).toEqual(['agent.ndjson']);
    expectNone(readFileSync(recording), 'the NDJSON recording the fixture wrote');
    const { texts, findings } = await everySink(recording);
    for (const [where, text] of texts) expectNone(text + ' ', where);
    expect(findings.map((f) => `#${f.exchange}.${f.seq} ${f.pointer}`)).toEqual(expect.arrayContaining(['#1.1 /params/keys/0', '#1.1 ', '#1.2 ', '#1.3 /result/keys/11']));
    expect(findings.some((f) => f.message.includes("is in the agent's command line"))).toBe(true);

    // A hand-written NDJSON recording holding them, imported into a .db.
    const hand = writeNdjsonRecording([
      {
        transport: 'http',
        method: 'POST',
        path: '/x',
        query: `k=${PLANTED['slack-token']}`,
        requestHeaders: { 'x-k': PLANTED['github-pat'] },
        messages: [
          { sender: 'client', json: { keys: ALL } },
          { sender: 'server', raw: `plain ${LINE}`, status: 'unchecked' },
        ],
      },
    ]);
    const imported = dir.file('imported.db');
    importNdjsonFile(hand, imported);
    expectNone(recordingBytes(imported), 'the imported .db');
    const reader = RecordingReader.open(imported);
    onCleanup(() => reader.close());
    // The JSON one names each place; in plain text nothing tells two keys of a format apart: one finding per format.
    const formatsInOneLine = Object.keys(CREDENTIAL_FORMATS).length - 1; // all but the PEM block
    expect(reader.messages(1).map((m) => m.verdict.findings.filter((f) => f.rule === 'secret-in-traffic').length)).toEqual([ALL.length + 2, formatsInOneLine]);
  });
});

describe('--keep-secrets-matching', () => {
  it('keeps what it matches (import, and a recording fixture), and a pattern that does not compile is refused in one line before anything starts', async () => {
    const dir = scratch('agent-proxy-credentials-');
    const hand = writeNdjsonRecording([{ transport: 'stdio', messages: [{ sender: 'server', channel: 'stderr', raw: LINE, status: 'unchecked' }] }]);
    const out = dir.file('kept.db');
    const imported = await runCli(['import', hand, '--out', out, '--keep-secrets-matching', '^AKIA', '--keep-secrets-matching', 'EXAMPLE$']);
    expect(imported.code, imported.stderr).toBe(0);
    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    expect(reader.messages(1)[0].raw.toString()).toBe(ONE_LINE.map((value) => (value === PLANTED['aws-access-key-id'] ? value : '<redacted>')).join(' '));

    // Recording too (fixture --stdio → the recording worker): an agent that says them all on stderr.
    const kept = dir.file('kept.ndjson');
    const agent = `process.stderr.write(${JSON.stringify(LINE + '\n')}); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
    const fixture = await runCli(['fixture', kept, '--stdio', '--quiet', '--keep-secrets-matching', '^gh[po]_', '--', process.execPath, '-e', agent], { env: { AGENT_PROXY_MODE: 'record' } });
    expect(fixture.code, fixture.stderr).toBe(0);
    const stored = readFileSync(kept, 'utf8');
    expect(stored).toContain(PLANTED['github-token']);
    expect(stored).toContain(PLANTED['github-oauth']);
    expectNone(stored.split(PLANTED['github-token']).join('').split(PLANTED['github-oauth']).join('').replace(/\n/g, ' '), 'the rest of the fixture');
    rmSync(kept);

    for (const args of [
      ['record', '--target', 'http://127.0.0.1:9', '--listen', '0', '--out', dir.file('bad.db'), '--keep-secrets-matching', '(sk-'],
      ['import', hand, '--out', dir.file('bad2.db'), '--keep-secrets-matching', '[z-a]'],
    ]) {
      const refused = await runCli(args);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(/--keep-secrets-matching "(\(sk-|\[z-a\])" is not a valid regular expression: /);
    }
    expect(readdirSync(dir.dir)).toEqual(['kept.db']);
  });
});

function scratchDirOf(file: string): string {
  return file.slice(0, file.lastIndexOf('/'));
}
