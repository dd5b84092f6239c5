/**
 * FlowGate and forwardHeld on real unix sockets: a source held because the socket it is forwarded to
 * is full is let go when that socket drains, and also when it closes without draining (its peer
 * half-closed while it was full: Node ends such a socket, and an ended socket never emits 'drain').
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FlowGate, forwardHeld } from '../../src/record/relay/flow-gate.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { within } from '../support/waits.js';

useCleanups();

/** More than a unix socket's buffers and a paused reader's hold, so most of it waits in the writable. */
const BIG = Buffer.alloc(4 * 1024 * 1024, 0x61);

/** The proxy's side of a connection (`to`, ended by Node when its peer half-closes) and the peer's, which does not read until told. */
async function connection(): Promise<{ to: Socket; peer: Socket }> {
  const path = scratch('agent-proxy-flow-gate-').file('gate.sock');
  const server: Server = createServer();
  onCleanup(() => void server.close());
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const peer = createConnection({ path, allowHalfOpen: true });
  peer.pause();
  onCleanup(() => void peer.destroy());
  const [to] = await accepted;
  onCleanup(() => void to.destroy());
  to.on('error', () => undefined);
  return { to, peer };
}

/** A gate whose source is a counter of pauses and resumes, and a promise of its next resume. */
function countingGate() {
  const state = { paused: false, resumed: 0 };
  let resumed!: () => void;
  const nextResume = new Promise<void>((resolve) => (resumed = resolve));
  const gate = new FlowGate<'peer' | 'recorder'>(
    () => (state.paused = true),
    () => {
      state.paused = false;
      state.resumed++;
      resumed();
    },
  );
  return { gate, state, nextResume };
}

describe('forwardHeld', () => {
  it('holds the source while the socket is full and lets it go when the socket drains', async () => {
    const { to, peer } = await connection();
    const { gate, state, nextResume } = countingGate();
    forwardHeld(to, BIG, gate);
    expect(state.paused).toBe(true);
    peer.resume();
    await within(nextResume, 'the source to be let go on drain');
    expect(state).toEqual({ paused: false, resumed: 1 });
  });

  it('lets the source go when the socket closes without draining: its peer half-closed while it was full', async () => {
    const { to, peer } = await connection();
    const { gate, state, nextResume } = countingGate();
    to.resume();
    forwardHeld(to, BIG, gate);
    expect(state.paused).toBe(true);
    // The peer ends its side before reading anything: Node ends `to` with the data still queued,
    // and from then on `to` can only finish and close, never drain.
    const ended = once(to, 'end');
    peer.end();
    await within(ended, 'the proxy side to see the half-close');
    expect(to.writableEnded).toBe(true);
    expect(to.writableLength).toBeGreaterThan(0);
    peer.resume();
    await within(nextResume, 'the source to be let go once the socket closed');
    expect(to.destroyed).toBe(true);
    expect(state).toEqual({ paused: false, resumed: 1 });
  });

  it('writes nothing to a destroyed socket and holds nothing for it', async () => {
    const { to } = await connection();
    const { gate, state } = countingGate();
    to.destroy();
    forwardHeld(to, BIG, gate);
    expect(state).toEqual({ paused: false, resumed: 0 });
  });
});
