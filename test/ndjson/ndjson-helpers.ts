/** Clients of the NDJSON socket for the ndjson tests. */
import { createConnection, type Socket } from 'node:net';
import { afterEach, beforeEach, expect } from 'vitest';
import { within } from '../support/waits.js';
import { tempDir } from '../support/temp-dir.js';
import { ndjsonConversation, type NdjsonDaemon } from '../support/ndjson-daemon.js';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';
import { BIN, spawnLines, type LineProcess } from '../stdio/stdio-helpers.js';

export type Json = Record<string, unknown>;

/** A client of the NDJSON socket: sends a line, collects every line that comes back. */
export async function connect(socketPath: string): Promise<{ socket: Socket; lines: Json[]; waitFor(pred: (l: Json) => boolean): Promise<void>; closed: Promise<void> }> {
  const socket = createConnection({ path: socketPath });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const lines: Json[] = [];
  const waiters: Array<() => void> = [];
  let pending = '';
  socket.setEncoding('utf8').on('data', (d: string) => {
    pending += d;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const p of parts) lines.push(JSON.parse(p) as Json);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    socket,
    lines,
    closed,
    waitFor: (pred) =>
      within(
        new Promise<void>((resolve) => {
          const check = () => (lines.some(pred) ? resolve() : waiters.push(check));
          check();
        }),
        'an NDJSON line',
      ),
  };
}

/** Plays the scripted client commands, each with `requestId` + suffix (and `edit` applied), awaiting each terminal response. */
export async function conversation(socketPath: string, suffix: string, edit: (command: Json) => Json = (c) => c): Promise<Json[]> {
  const client = await connect(socketPath);
  for (const { command } of ndjsonConversation()) {
    const requestId = `${String(command.requestId)}${suffix}`;
    client.socket.write(JSON.stringify(edit({ ...command, requestId })) + '\n');
    await client.waitFor((l) => l.kind === 'response' && l.requestId === requestId);
  }
  client.socket.end();
  await client.closed;
  return client.lines;
}

/**
 * What each ndjson test works in: a fresh temp folder, the CLI children it starts and the daemon
 * stand-in it sets, all killed, closed and removed after each test. Call once at the top of a file.
 */
export function ndjsonScope(prefix: string) {
  const running: LineProcess[] = [];
  const scope = {
    dir: undefined as unknown as ReturnType<typeof tempDir>,
    daemon: undefined as NdjsonDaemon | undefined,
    startCli(args: string[]): LineProcess {
      const proc = spawnLines('node', [BIN, ...args]);
      running.push(proc);
      return proc;
    },
    /** `proxy record --ndjson` from a new socket in the temp folder to `target`, once it says where it listens. */
    async recordThrough(target: string, out: string, extra: string[] = []): Promise<{ proc: LineProcess; socket: string }> {
      const socket = scope.dir.file(`proxy-${running.length}.sock`);
      const proc = scope.startCli(['record', '--ndjson', '--target', `unix:${target}`, '--listen', `unix:${socket}`, '--out', out, '--schemas', STANDIN_SCHEMAS_DIR, ...extra]);
      const [first] = await proc.waitForLines(1);
      expect(first).toBe(`listening on unix:${socket} -> unix:${target}`);
      return { proc, socket };
    },
    /** SIGTERM, resolved with the exit code. */
    async stop(proc: LineProcess): Promise<number | null> {
      proc.child.kill('SIGTERM');
      return (await proc.exited).code;
    },
  };
  beforeEach(() => {
    scope.dir = tempDir(prefix);
  });
  afterEach(async () => {
    for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await scope.daemon?.close();
    scope.daemon = undefined;
    scope.dir.cleanup();
  });
  return scope;
}
