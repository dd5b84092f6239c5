/**
 * Helpers for the stdio tests: a line-oriented child process (the proxy or an agent run directly),
 * ACP clients over its pipes, and a compact view of a recording.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ClientSideConnection, ndJsonStream, type Client, type SessionNotification } from '@agentclientprotocol/sdk';
import { BIN, REPO, runCli } from '../cli/run-cli.js';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import type { ExchangeRow, MessageRow } from '../../src/store/store-types.js';
import { within } from '../support/waits.js';

export const PI_AGENT = fileURLToPath(new URL('../support/stdio-pi-agent.mjs', import.meta.url));
export const ACP_AGENT = fileURLToPath(new URL('../support/stdio-acp-agent.mjs', import.meta.url));
export const BURST_AGENT = fileURLToPath(new URL('../support/stdio-burst-agent.mjs', import.meta.url));
export { BIN, REPO };

export interface LineProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout so far, byte for byte. */
  stdout(): Buffer;
  /** Complete stdout lines so far (without LF). */
  lines(): string[];
  stderr(): string;
  send(line: string | Buffer): void;
  /** Resolves once at least `n` stdout lines have arrived. */
  waitForLines(n: number): Promise<string[]>;
  /** Resolves once stderr contains `text`. */
  waitForStderr(text: string | RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `command args` with piped stdio (`node` as the command means this Node). */
export function spawnLines(command: string, args: string[], env: NodeJS.ProcessEnv = {}): LineProcess {
  const child = spawn(command === 'node' ? process.execPath : command, args, {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let err = '';
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  child.stdout.on('data', (c: Buffer) => {
    out.push(c);
    notify();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
    notify();
  });
  child.stdin.on('error', () => undefined);
  const stdout = () => Buffer.concat(out);
  const lines = () => {
    const text = stdout().toString('utf8');
    const parts = text.split('\n');
    parts.pop();
    return parts;
  };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const until = (done: () => boolean, what: string) =>
    within(
      new Promise<void>((resolve) => {
        const check = () => (done() ? resolve() : waiters.push(check));
        check();
      }),
      what,
    );
  return {
    child,
    stdout,
    lines,
    stderr: () => err,
    send: (line) => child.stdin.write(line),
    waitForLines: async (n) => {
      await until(() => lines().length >= n, `${n} stdout lines (have ${lines().length}; stderr: ${err})`);
      return lines();
    },
    waitForStderr: (text) => until(() => (typeof text === 'string' ? err.includes(text) : text.test(err)), `stderr ${String(text)} (have: ${err})`),
    exited,
  };
}

/** `proxy record --stdio --out <out> [extra] -- node <agent>` as a LineProcess. */
export function recordStdio(out: string, agent: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): LineProcess {
  return spawnLines('node', [BIN, 'record', '--stdio', '--out', out, ...extra, '--', process.execPath, agent], env);
}

/** `proxy replay --stdio <recording> --timing none [extra]` as a LineProcess. */
export function replayStdioProcess(recording: string, extra: string[] = []): LineProcess {
  return spawnLines('node', [BIN, 'replay', '--stdio', recording, '--timing', 'none', ...extra]);
}

export interface AcpTranscript {
  /** Every message the client received, in order (requests, responses, notifications). */
  received: unknown[];
  stopReasons: string[];
  updates: SessionNotification[];
  permissionAsked: number;
}

/**
 * Drives an ACP agent process with the official ClientSideConnection: initialize, session/new, a
 * text prompt, a prompt that asks for permission (granted), then closes stdin.
 */
export async function runAcpClient(proc: LineProcess, prompts = ['Say hello', 'PERMISSION READFILE please read hello.txt']): Promise<AcpTranscript> {
  const transcript: AcpTranscript = { received: [], stopReasons: [], updates: [], permissionAsked: 0 };
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      proc.child.stdout.on('data', (c: Buffer) => {
        for (const line of c.toString('utf8').split('\n')) if (line.trim()) transcript.received.push(JSON.parse(line));
        controller.enqueue(new Uint8Array(c));
      });
      proc.child.stdout.on('end', () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
  });
  const client: Client = {
    async requestPermission() {
      transcript.permissionAsked++;
      return { outcome: { outcome: 'selected', optionId: 'allow' } };
    },
    async sessionUpdate(params) {
      transcript.updates.push(params);
    },
  };
  const stream = ndJsonStream(Writable.toWeb(proc.child.stdin) as WritableStream<Uint8Array>, input);
  const conn = new ClientSideConnection(() => client, stream);
  await within(conn.initialize({ protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } }), 'initialize');
  const session = await within(conn.newSession({ cwd: '/srv/work/project-a', mcpServers: [] }), 'session/new');
  for (const text of prompts) {
    const result = await within(conn.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text }] }), `prompt ${text}`);
    transcript.stopReasons.push(result.stopReason);
  }
  return transcript;
}

/** A recording's exchanges and messages, read back. */
export function readRecording(file: string): { exchanges: ExchangeRow[]; messages: (id: number) => MessageRow[] } {
  const reader = RecordingReader.open(file);
  try {
    const exchanges = reader.exchanges();
    const byId = new Map(exchanges.map((e) => [e.id, reader.messages(e.id)]));
    return { exchanges, messages: (id) => byId.get(id) ?? [] };
  } finally {
    reader.close();
  }
}

/** `proxy diff a b --format json` through the built CLI. */
export async function diffJson(a: string, b: string): Promise<{ code: number | null; report: DiffReport; stderr: string }> {
  const result = await runCli(['diff', a, b, '--format', 'json']);
  return { code: result.code, report: JSON.parse(result.stdout) as DiffReport, stderr: result.stderr };
}

/** Every difference pointer of a report, for asserting where two recordings differ. */
export function pointersOf(report: DiffReport): string[] {
  return report.exchanges.flatMap((e) => [...e.fields.map((f) => f.pointer), ...e.messages.flatMap((m) => m.differences.map((d) => d.pointer))]);
}

export { Readable };
