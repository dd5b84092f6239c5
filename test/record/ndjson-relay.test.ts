/**
 * The NDJSON socket relay keeps which side ended a connection first: a replay ends the connection
 * itself only where the daemon did (`E_UPSTREAM_ENDED`).
 */
import { createConnection, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ndjsonConversation, startNdjsonDaemon } from '../support/ndjson-daemon.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';
import { readRecording } from '../stdio/stdio-helpers.js';
import { startNdjsonRecorder } from '../../src/record/relay/ndjson-relay.js';

type Json = Record<string, unknown>;

const STATUS = ndjsonConversation().find((c) => c.command.operation === 'status')!.command;
const DIE: Json = { protocolVersion: '1.0', requestId: 'die-1', operation: 'standInDie', sessionId: 'ndjson-a', generation: 1, payload: { after: 1 } };

/** A client connection: sends `command`, and resolves `answered` on its response, `ended` when the other side ends. */
function client(socketPath: string, command: Json): { socket: Socket; answered: Promise<void>; ended: Promise<void> } {
  const socket = createConnection({ path: socketPath, allowHalfOpen: true });
  onCleanup(() => void socket.destroy());
  socket.on('error', () => undefined);
  socket.once('connect', () => socket.write(JSON.stringify(command) + '\n'));
  let pending = '';
  const answered = new Promise<void>((resolve) =>
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      if (pending.split('\n').some((line) => line.includes('"kind":"response"'))) resolve();
    }),
  );
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  return { socket, answered, ended };
}

describe('record --ndjson: which side ended a connection first', () => {
  useCleanups();

  it('stores E_UPSTREAM_ENDED where the daemon ended first, also when the proxy then stopped; nothing where the client did; E_PROXY_SHUTDOWN where the proxy did', async () => {
    const dir = scratch('agent-proxy-ndjson-relay-');
    const daemon = await startNdjsonDaemon(dir.file('daemon.sock'));
    onCleanup(() => daemon.close());
    const recorder = await startNdjsonRecorder({ target: `unix:${daemon.socketPath}`, listen: `unix:${dir.file('proxy.sock')}`, out: dir.file('ends.db'), registry: bareRegistry(), pipeline: 'inline' });
    onCleanup(async () => void (await recorder.close()));
    const socketPath = recorder.url.slice('unix:'.length);

    // 1. The daemon drops the connection; the client then writes a blank line and ends its side.
    const dropped = client(socketPath, DIE);
    await within(dropped.ended, 'the daemon to end connection 1');
    dropped.socket.end('\n');
    await within(daemon.lastClosed(), 'connection 1 to close');
    // 2. The client asks, is answered and ends first.
    const asked = client(socketPath, STATUS);
    await within(asked.answered, 'the answer on connection 2');
    asked.socket.end();
    await within(asked.ended, 'connection 2 to end');
    // 3. The daemon drops the connection; the client keeps its side open until the proxy stops.
    const lingering = client(socketPath, DIE);
    await within(lingering.ended, 'the daemon to end connection 3');
    // 4. Both sides open when the proxy stops.
    const open = client(socketPath, STATUS);
    await within(open.answered, 'the answer on connection 4');
    // The proxy's end of connection 4 comes once it is stopping: then both clients end their sides, so
    // the stop need not wait out its grace period.
    void open.ended.then(() => {
      open.socket.end();
      lingering.socket.end();
    });
    await recorder.close();

    const ends = readRecording(recorder.out).exchanges.map((e) => [e.outcome, e.errorCode]);
    expect(ends).toEqual([
      ['complete', 'E_UPSTREAM_ENDED'],
      ['complete', null],
      ['complete', 'E_UPSTREAM_ENDED'],
      ['complete', 'E_PROXY_SHUTDOWN'],
    ]);
  });
});
