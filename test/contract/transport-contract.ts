/**
 * The transport contract: one suite every transport passes (HTTP with SSE, WebSocket, stdio lines,
 * unix-socket NDJSON lines), in the manner of Polly.js's adapter tests. A transport's adapter
 * (`*.contract.test.ts` beside this file) says how to start its peer stand-in behind a recording
 * proxy, how to replay a recording, and how to be a client; this file says what must hold:
 *
 * - a record → replay round trip gives the client the same bytes, with its fresh ids echoed;
 * - a miss is answered in the protocol's shape, exactly what its module's missAnswers produce;
 * - every `--fault` kind either acts as documented or is stated as not applying (counted 0);
 * - a close from each side, during record and during replay;
 * - back-pressure from a slow reader: nothing dropped or reordered, and the peer is held back;
 * - an abort, during record and during replay.
 *
 * A new transport is done when it passes. Time is never measured: pacing runs on a ManualClock,
 * and waits are for events (test/support/waits.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultKind } from '../../src/replay/fault/fault-spec.js';
import type { FaultTally } from '../../src/replay/fault/fault-plan.js';
import { driveClock, ManualClock } from '../support/manual-clock.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { waitFor, within } from '../support/waits.js';

/** What a client conversation does: the ordinary recorded one, a flood the peer writes, or one the peer breaks off. */
export type Script = 'conversation' | 'flood' | 'peer-closes';

/** How a conversation ended, as its client saw it. */
export type Ending =
  /** The client's script ran to its end and the client left as it normally does. */
  | { kind: 'finished' }
  /** The other side ended the stream as a peer ends it (the body's end, the socket's end). */
  | { kind: 'ended' }
  /** The connection broke off without an end. */
  | { kind: 'reset' }
  /** A WebSocket close with this code (1006: none was sent). */
  | { kind: 'closed'; code: number }
  /** The agent (real or replayed) exited with this code. */
  | { kind: 'exited'; code: number }
  /** An HTTP status and body in place of the stream or the upgrade. */
  | { kind: 'status'; status: number; body: string }
  /** The client left before the end (it closed or aborted). */
  | { kind: 'left' };

/** One client conversation in progress. */
export interface ClientRun {
  /** What arrived from the other side so far, one entry per message (SSE event, text frame, line), as sent. */
  readonly messages: string[];
  /** What arrived before the messages where the transport has a head (HTTP: the status and content type). */
  readonly head?: () => string | undefined;
  readonly ended: Promise<Ending>;
  /** Stops reading: what comes next waits in the proxy, the socket or pipe buffers, and the peer. */
  pause(): void;
  resume(): void;
  /**
   * Leaves mid-stream: `close` as a client that is done (a WebSocket close 1000, the end of stdin or of
   * its side of the socket; HTTP has no such thing and drops the connection), `abort` as one that is
   * gone (an aborted request, a connection dropped without a close, a client process that died).
   */
  leave(how: 'close' | 'abort'): void;
}

export interface RecordingProxy {
  /** Starts a client conversation through the proxy; ids minted by the client end in `ids`. */
  converse(script: Script, ids: string): ClientRun;
  /** Flood messages that have left the peer so far, as far as the test can see (the peer's own count, or what reached the client's pipe). */
  floodTaken(): number;
  /** Resolves once the peer has seen its client go away (its connection closed, its stdin ended). */
  peerSawLeave(): Promise<void>;
  /** Stops the proxy and the peer; resolves with the recording. */
  finish(): Promise<string>;
}

export interface ReplayProxy {
  converse(script: Script, ids: string): ClientRun;
  /** Flood messages handed to the client's side, where the test can see them (a pipe it reads); undefined on a socket. */
  floodTaken?(): number;
  /** Sends what the recording never had: what arrived, and what the protocol module's missAnswers say must. */
  miss(): Promise<{ received: string; expected: string }>;
  /** Closes the replay: how often each fault spec was injected. */
  close(): Promise<FaultTally[]>;
}

export interface ReplayStart {
  faults?: string[];
  clock?: ManualClock;
}

export interface TransportAdapter {
  name: string;
  /**
   * The fault kinds that act on this transport; every other kind gets the reason it cannot
   * (the suite checks the replay agrees: a spec of that kind selects nothing and changes nothing).
   */
  faults: { [Kind in FaultKind]: 'acts' | { notApplicable: string } };
  /** How a finished conversation and a `cut=clean` / `cut=reset` look to this transport's client. */
  endings: { finished: Ending; clean?: Ending; reset?: Ending };
  /** `one`: a proxy serves one conversation (a stdio agent), so a second gets its own proxy. */
  sessionsPerProxy: 'one' | 'many';
  /** How many messages the peer of the `peer-closes` script writes before it breaks the conversation off. */
  peerClosesAfter: number;
  /** How many messages the flood's peer writes, and which of them a message is (undefined: not one of them). */
  flood: { count: number; index(message: string): number | undefined };
  /** Starts the peer and a recording proxy in front of it, their files in `dir` (default: a folder for this test). */
  record(dir?: TempDir): Promise<RecordingProxy>;
  replay(recording: string, options?: ReplayStart): Promise<ReplayProxy>;
}

/** Ids a client mints on the recorded run and on the replayed one: the replay must echo the second. */
export const RECORDED_IDS = 'idA7f3';
export const REPLAYED_IDS = 'idB9c1';

const FAULT_KINDS: readonly FaultKind[] = ['latency', 'gap', 'status', 'cut', 'close', 'exit'];

/** What the recorded client received, with its ids as the replayed client mints them. */
const withReplayIds = (messages: readonly string[]) => messages.map((m) => m.replaceAll(RECORDED_IDS, REPLAYED_IDS));

/**
 * Resolves once `count()` has not moved for a while. Proving that something does not happen needs a
 * quiet spell: a proxy that kept reading would move it again within a few turns of the event loop,
 * and a slow machine can only make a regression pass, never a correct proxy fail.
 */
async function settled(count: () => number, what: string): Promise<number> {
  let last = -1;
  let still = 0;
  return waitFor(
    () => {
      const now = count();
      still = now === last ? still + 1 : 0;
      last = now;
      return still >= 20 ? now + 1 : 0;
    },
    what,
  ).then((n) => n - 1);
}

export function describeTransportContract(adapter: TransportAdapter): void {
  describe(`transport contract: ${adapter.name}`, () => {
    useCleanups();

    // One recording of the ordinary conversation serves every case that only replays it: it is made
    // once per file, in a folder kept until the file ends.
    let files: TempDir;
    beforeAll(() => void (files = tempDir('agent-proxy-contract-')));
    afterAll(() => files.cleanup());
    let conversation: Promise<{ recording: string; live: string[]; head: string | undefined }> | undefined;

    /**
     * A recording of whole conversations (two where a proxy serves many, so a replay can serve a
     * second client), and what the client received on the first.
     */
    function recorded(): Promise<{ recording: string; live: string[]; head: string | undefined }> {
      conversation ??= (async () => {
        const proxy = await adapter.record(files);
        let live: string[] = [];
        let head: string | undefined;
        for (let i = 0; i < (adapter.sessionsPerProxy === 'many' ? 2 : 1); i++) {
          const run = proxy.converse('conversation', RECORDED_IDS);
          expect(await within(run.ended, `recorded conversation ${i + 1} to end`)).toEqual(adapter.endings.finished);
          if (i === 0) [live, head] = [run.messages.slice(), run.head?.()];
        }
        expect(live.length).toBeGreaterThan(2);
        return { recording: await proxy.finish(), live, head };
      })();
      return conversation;
    }

    it('round trip: the replayed client gets, byte for byte, what the recorded one got from the peer, its own ids echoed', async () => {
      const { recording, live, head } = await recorded();
      const replay = await adapter.replay(recording);
      const run = replay.converse('conversation', REPLAYED_IDS);
      expect(await within(run.ended, 'the replayed conversation to end')).toEqual(adapter.endings.finished);
      expect(run.head?.()).toEqual(head);
      expect(run.messages).toEqual(withReplayIds(live));
      expect(run.messages.join('')).not.toContain(RECORDED_IDS);
    });

    it("miss: what the recording never had is answered in the protocol's error shape, as its module says", async () => {
      const { recording } = await recorded();
      const replay = await adapter.replay(recording);
      const { received, expected } = await replay.miss();
      expect(received).toBe(expected);
    });

    describe('faults', () => {
      for (const kind of FAULT_KINDS) {
        const acts = adapter.faults[kind];
        if (acts !== 'acts') {
          it(`${kind}: does not apply (${acts.notApplicable}); such a spec selects nothing and changes nothing`, async () => {
            const { recording, live } = await recorded();
            const spec = SPECS[kind];
            const replay = await adapter.replay(recording, { faults: [spec] });
            const run = replay.converse('conversation', REPLAYED_IDS);
            expect(await within(run.ended, 'the conversation to end')).toEqual(adapter.endings.finished);
            expect(run.messages).toEqual(withReplayIds(live));
            expect(await replay.close()).toEqual([{ spec, injected: 0 }]);
          });
          continue;
        }
        it(`${kind}: ${FAULT_CLAIMS[kind]}`, async () => {
          const { recording, live } = await recorded();
          await FAULT_CHECKS[kind](adapter, recording, withReplayIds(live));
        });
      }
    });

    describe('a close from each side', () => {
      it('the client closes mid-stream while recording: the peer sees it, and the proxy goes on', async () => {
        const proxy = await adapter.record();
        const run = proxy.converse('flood', RECORDED_IDS);
        // Paused, the client is still mid-flood when it leaves, however fast the flood would run.
        run.pause();
        await waitFor(() => proxy.floodTaken() > 0, 'the flood to start');
        run.leave('close');
        await within(proxy.peerSawLeave(), 'the peer to see its client leave');
        expect(await within(run.ended, 'the conversation to end')).toEqual({ kind: 'left' });
        await expectServesOn(proxy);
        await proxy.finish();
      });

      it('the client closes mid-stream during replay: the replay goes on and serves the next client whole', () => leaveDuringReplay('close'));

      it('the peer closes mid-stream while recording: the client gets what came before, then the close', async () => {
        await peerClosesWhileRecording();
      });

      it('the peer closed mid-stream in the recording: the replay closes the same way after the same messages', async () => {
        const { recording, live, liveEnding } = await peerClosesWhileRecording();
        const replay = await adapter.replay(recording);
        const run = replay.converse('peer-closes', REPLAYED_IDS);
        expect(await within(run.ended, 'the replayed broken conversation to end')).toEqual(liveEnding);
        expect(run.messages).toEqual(withReplayIds(live));
      });
    });

    it('back-pressure: a paused reader holds the peer back (record) and misses nothing, in order (record and replay)', async () => {
      const { count, index } = adapter.flood;
      const proxy = await adapter.record();
      const live = proxy.converse('flood', RECORDED_IDS);
      live.pause();
      await waitFor(() => proxy.floodTaken() > 0, 'the peer to start its flood');
      expect(await settled(() => proxy.floodTaken(), 'the peer to be held back')).toBeLessThan(count);
      live.resume();
      expect(await within(live.ended, 'the flood to end')).toEqual(adapter.endings.finished);
      const sequence = (messages: string[]) => messages.map(index).filter((i) => i !== undefined);
      expect(sequence(live.messages)).toEqual(Array.from({ length: count }, (_, i) => i));

      const replay = await adapter.replay(await proxy.finish());
      const run = replay.converse('flood', REPLAYED_IDS);
      run.pause();
      if (replay.floodTaken) {
        await waitFor(() => replay.floodTaken!() > 0, 'the replay to start the flood');
        expect(await settled(() => replay.floodTaken!(), 'the replay to be held back')).toBeLessThan(count);
      }
      run.resume();
      expect(await within(run.ended, 'the replayed flood to end')).toEqual(adapter.endings.finished);
      expect(run.messages).toEqual(withReplayIds(live.messages));
    });

    describe('an abort', () => {
      it('while recording: the peer sees its client gone, and the proxy goes on', async () => {
        const proxy = await adapter.record();
        const run = proxy.converse('flood', RECORDED_IDS);
        // Paused, the client is still mid-flood when it leaves, however fast the flood would run.
        run.pause();
        await waitFor(() => proxy.floodTaken() > 0, 'the flood to start');
        run.leave('abort');
        await within(proxy.peerSawLeave(), 'the peer to see its client gone');
        expect(await within(run.ended, 'the aborted conversation to end')).toEqual({ kind: 'left' });
        await expectServesOn(proxy);
        await proxy.finish();
      });

      it('during replay: the replay goes on and serves the next client whole', () => leaveDuringReplay('abort'));
    });

    /** A recording of a conversation the peer broke off, what its client got and how it saw the end. */
    async function peerClosesWhileRecording(): Promise<{ recording: string; live: string[]; liveEnding: Ending }> {
      const proxy = await adapter.record();
      const live = proxy.converse('peer-closes', RECORDED_IDS);
      const liveEnding = await within(live.ended, 'the broken conversation to end');
      expect(liveEnding).not.toEqual(adapter.endings.finished);
      expect(live.messages).toHaveLength(adapter.peerClosesAfter);
      return { recording: await proxy.finish(), live: live.messages.slice(), liveEnding };
    }

    /**
     * The first client leaves while the replay holds its stream after the first message (a gap on a
     * clock nobody moves, so it is mid-stream for certain); the next client, on the same replay where it
     * serves many, gets its conversation whole. A client that aborted is gone: the replay must end the
     * session it held without the clock moving. One that closed may still be read to (a stdio agent
     * finishes its turn once its stdin ends), so for it the clock runs on.
     */
    async function leaveDuringReplay(how: 'close' | 'abort'): Promise<void> {
      const many = adapter.sessionsPerProxy === 'many';
      const { recording, live } = await recorded();
      const clock = new ManualClock();
      let over!: () => void;
      const done = new Promise<void>((resolve) => (over = resolve));
      onCleanup(over);
      const replay = await adapter.replay(recording, { clock, faults: ['gap=60s,nth=1'] });
      const first = replay.converse('conversation', REPLAYED_IDS);
      await within(clock.sleeping(), 'the replay to hold the stream after its first message');
      await waitFor(() => first.messages.length === 1, 'the first message');
      first.leave(how);
      expect(await within(first.ended, 'the first conversation to end')).toEqual({ kind: 'left' });
      if (how === 'close') void driveClock(clock, done);
      const again = many ? replay : await adapter.replay(recording);
      const next = again.converse('conversation', REPLAYED_IDS);
      expect(await within(next.ended, 'the next conversation to end')).toEqual(adapter.endings.finished);
      expect(next.messages).toEqual(withReplayIds(live));
      await within(replay.close(), 'the replay to end the session its client left');
    }

    /** A proxy that serves many conversations still serves one after a client left; a one-conversation proxy has ended cleanly. */
    async function expectServesOn(proxy: RecordingProxy): Promise<void> {
      if (adapter.sessionsPerProxy === 'one') return;
      const next = proxy.converse('conversation', RECORDED_IDS);
      expect(await within(next.ended, 'the next conversation to end')).toEqual(adapter.endings.finished);
    }
  });
}

/** The spec each kind is tried with. */
const SPECS: { [Kind in FaultKind]: string } = {
  latency: 'latency=2s',
  gap: 'gap=100ms',
  status: 'status=503,nth=1',
  error: 'error=500,after=2',
  cut: 'cut=clean,after=2',
  close: 'close=1011,after=2',
  exit: 'exit=3,after=2',
};

const FAULT_CLAIMS: { [Kind in FaultKind]: string } = {
  latency: 'latency holds the first byte on the replay clock, then the conversation is whole',
  gap: 'gap comes before every message after the first, on the replay clock',
  status: 'status answers in place of the recording and uses nothing up',
  error: "error sends N messages, then the protocol's error event, and ends the stream",
  cut: 'cut ends after N messages, cleanly or by a reset',
  close: 'close sends N messages, then a close with the code',
  exit: 'the replayed agent exits with the code after N lines',
};

type FaultCheck = (adapter: TransportAdapter, recording: string, expected: string[]) => Promise<void>;

const FAULT_CHECKS: { [Kind in FaultKind]: FaultCheck } = {
  async latency(adapter, recording, expected) {
    const clock = new ManualClock();
    const replay = await adapter.replay(recording, { clock, faults: [SPECS.latency] });
    const run = replay.converse('conversation', REPLAYED_IDS);
    expect(await within(clock.sleeping(), 'the replay to hold its answer')).toBe(2000);
    expect(run.messages).toEqual([]);
    clock.advanceTo(2000);
    expect(await within(run.ended, 'the conversation to end')).toEqual(adapter.endings.finished);
    expect(run.messages).toEqual(expected);
    expect(clock.deadlines).toEqual([2000]);
    expect(await replay.close()).toEqual([{ spec: SPECS.latency, injected: 1 }]);
  },

  async gap(adapter, recording, expected) {
    const clock = new ManualClock();
    const replay = await adapter.replay(recording, { clock, faults: [SPECS.gap] });
    const run = replay.converse('conversation', REPLAYED_IDS);
    const stepped = await driveClock(clock, run.ended);
    expect(await run.ended).toEqual(adapter.endings.finished);
    expect(run.messages).toEqual(expected);
    expect(stepped).toEqual(expected.slice(1).map((_, i) => 100 * (i + 1)));
    expect(await replay.close()).toEqual([{ spec: SPECS.gap, injected: 1 }]);
  },

  async status(adapter, recording, expected) {
    const replay = await adapter.replay(recording, { faults: [SPECS.status] });
    const refused = replay.converse('conversation', REPLAYED_IDS);
    const ending = await within(refused.ended, 'the injected status');
    expect(ending).toMatchObject({ kind: 'status', status: 503 });
    expect(JSON.parse((ending as { body: string }).body)).toMatchObject({ error: { code: 'fault_injected', fault: SPECS.status } });
    expect(refused.messages).toEqual([]);
    const retry = replay.converse('conversation', REPLAYED_IDS);
    expect(await within(retry.ended, 'the retry to end')).toEqual(adapter.endings.finished);
    expect(retry.messages).toEqual(expected);
    expect(await replay.close()).toEqual([{ spec: SPECS.status, injected: 1 }]);
  },

  async error(adapter, recording, expected) {
    const replay = await adapter.replay(recording, { faults: [SPECS.error] });
    const run = replay.converse('conversation', REPLAYED_IDS);
    expect(await within(run.ended, 'the stream to end after its error event')).toEqual(adapter.endings.clean);
    expect(run.messages.slice(0, 2)).toEqual(expected.slice(0, 2));
    expect(run.messages).toHaveLength(3);
    expect(run.messages[2]).toContain(SPECS.error);
    expect(await replay.close()).toEqual([{ spec: SPECS.error, injected: 1 }]);
  },

  async cut(adapter, recording, expected) {
    for (const how of ['clean', 'reset'] as const) {
      const spec = `cut=${how},after=2`;
      const replay = await adapter.replay(recording, { faults: [spec] });
      const run = replay.converse('conversation', REPLAYED_IDS);
      expect(await within(run.ended, `the ${how} cut`), spec).toEqual(adapter.endings[how]);
      expect(run.messages, spec).toEqual(expected.slice(0, 2));
      expect(await replay.close()).toEqual([{ spec, injected: 1 }]);
    }
  },

  async close(adapter, recording, expected) {
    const replay = await adapter.replay(recording, { faults: [SPECS.close] });
    const run = replay.converse('conversation', REPLAYED_IDS);
    expect(await within(run.ended, 'the close')).toEqual({ kind: 'closed', code: 1011 });
    expect(run.messages).toEqual(expected.slice(0, 2));
    expect(await replay.close()).toEqual([{ spec: SPECS.close, injected: 1 }]);
  },

  async exit(adapter, recording, expected) {
    const replay = await adapter.replay(recording, { faults: [SPECS.exit] });
    const run = replay.converse('conversation', REPLAYED_IDS);
    expect(await within(run.ended, 'the exit')).toEqual({ kind: 'exited', code: 3 });
    expect(run.messages).toEqual(expected.slice(0, 2));
    expect(await replay.close()).toEqual([{ spec: SPECS.exit, injected: 1 }]);
  },
};
