/**
 * `proxy replay` serving AG-UI runs (SSE and protobuf): record the stand-in through the proxy,
 * replay the recording, and check what real clients (HttpAgent, fetch, node:http) get.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent, type Message, type RunAgentInput } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, defaultAguiScript, echoAguiScript, ProtobufHttpAgent, startAguiAgent, type AguiAgent, type AguiAgentOptions } from '../support/agui-agent.js';
import { closedPort, rawRequest, runInput, sseBlocks } from '../record/record-helpers.js';
import { expectSameRecording, onCleanup, record, replay, rewrite, useCleanups } from './replay-helpers.js';
import { within } from '../support/waits.js';
import { scratch } from '../support/temp-dir.js';
import { writeNdjsonRecording } from '../support/ndjson-recording.js';
import { startReplay } from '../../src/replay/start-replay.js';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import { deadlinesOf, driveClock, dueTimes, ManualClock, Progress, writtenBy } from '../support/manual-clock.js';

useCleanups();

async function agui(options?: AguiAgentOptions): Promise<AguiAgent> {
  const a = await startAguiAgent(options);
  onCleanup(() => a.close());
  return a;
}

async function runWith(Agent: typeof HttpAgent, url: string, threadId: string, runId: string) {
  const agent = new Agent({ url, threadId, initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }], initialState: { counter: 0 } });
  const seen: BaseEvent[] = [];
  await agent.runAgent({ runId }, { onEvent: ({ event }) => void seen.push(event) });
  return { messages: agent.messages as Message[], state: agent.state as unknown, seen };
}

const SSE_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' };

/** A user message whose text the stand-in's `echo` script repeats: each run's answer is its own. */
const inputSaying = (text: string, threadId = 'thread-1', runId = 'run-1'): RunAgentInput => ({
  ...runInput(threadId, runId),
  messages: [{ id: 'u1', role: 'user', content: text }],
});

describe('proxy replay: AG-UI round trip', () => {
  for (const [transport, Agent] of [
    ['sse', HttpAgent],
    ['proto', ProtobufHttpAgent],
  ] as const) {
    it(`record → replay → record again holds the same messages and verdicts; only the substituted ids differ (${transport})`, async () => {
      const a = await agui();
      const first = await record(a.url);
      const live = await runWith(Agent, `${first.url}/agent`, 'thread-rec', 'run-rec');
      const recorded = await first.finish();

      const served = await replay(first.out);
      const second = await record(served.url);
      const replayed = await runWith(Agent, `${second.url}/agent`, 'thread-new', 'run-new');
      const again = await second.finish();

      // The official client materialises the same run from the replay, under its own new ids.
      expect(replayed.messages).toEqual(live.messages);
      expect(replayed.state).toEqual(live.state);
      expect(replayed.state).toEqual({ counter: 1, status: 'done' });
      const started = replayed.seen.find((e) => e.type === EventType.RUN_STARTED) as unknown as { threadId: string; runId: string };
      expect(started).toMatchObject({ threadId: 'thread-new', runId: 'run-new' });
      expect(replayed.seen.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, threadId: 'thread-new', runId: 'run-new' });

      expect(again.exchanges()[0]).toMatchObject({ transport, protocol: 'agui', status: 200, outcome: 'complete', invalidCount: 0 });
      expectSameRecording(recorded, again, { 'thread-rec': 'thread-new', 'run-rec': 'run-new' });
      expect(served.served).toMatchObject([{ exchangeId: 1, transport, substitutions: 2, reused: false }]);
      expect(served.unused()).toEqual([]);
      expect(served.misses()).toEqual([]);
    });
  }

  it('re-emits SSE extras (comments, CRLF, event:/id: lines, split data) byte for byte, one frame per chunk, unbuffered', async () => {
    const a = await agui({ extraSse: true });
    const first = await record(a.url);
    const body = JSON.stringify(runInput());
    const direct = await rawRequest({ url: first.url }, 'POST', '/', SSE_HEADERS, body);
    await first.finish();
    const served = await replay(first.out);
    const again = await rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, body);
    expect(again.status).toBe(200);
    expect(again.body.equals(direct.body)).toBe(true);
    expect(again.headers['content-type']).toBe('text/event-stream');
    expect(again.headers['x-accel-buffering']).toBe('no');
    expect(again.headers['content-length']).toBeUndefined();
  });

  it('replays the same recording twice to the same requests with byte-identical bodies (SSE and protobuf)', async () => {
    const a = await agui();
    const first = await record(a.url);
    const body = JSON.stringify(runInput('t-1', 'r-1'));
    const protoHeaders = { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE };
    await rawRequest({ url: first.url }, 'POST', '/', SSE_HEADERS, body);
    await rawRequest({ url: first.url }, 'POST', '/', protoHeaders, body);
    await first.finish();

    const live = JSON.stringify(runInput('t-2', 'r-2'));
    const bodies: Buffer[][] = [];
    for (let i = 0; i < 2; i++) {
      const served = await replay(first.out);
      bodies.push([
        (await rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, live)).body,
        (await rawRequest({ url: served.url }, 'POST', '/', protoHeaders, live)).body,
      ]);
      await served.close();
    }
    expect(bodies[0][0].length).toBeGreaterThan(0);
    expect(bodies[1][0].equals(bodies[0][0])).toBe(true);
    expect(bodies[1][1].equals(bodies[0][1])).toBe(true);
    expect(bodies[0][0].toString()).toContain('"runId":"r-2"');
  });
});

/**
 * A recording of one default run whose events passed `gapMs` apart, written by hand so the gaps are
 * exactly that whatever the machine's load; returns the file, the body it serves and when each event falls due.
 */
function pacedRecording(gapMs: number, events: readonly object[] = defaultAguiScript(runInput())) {
  const out = writeNdjsonRecording([
    {
      transport: 'sse',
      protocol: 'agui',
      method: 'POST',
      path: '/',
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      messages: [{ sender: 'client', json: runInput(), tOffsetMs: 10 }, ...events.map((json, i) => ({ sender: 'server' as const, json, tOffsetMs: 20 + i * gapMs }))],
    },
  ]);
  // A stream is paced from the moment the recorded request had fully arrived: its exchange starts at 10 ms.
  return { out, live: events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), anchor: 10, offsets: events.map((_, i) => 20 + i * gapMs) };
}

describe('proxy replay: timing', () => {
  for (const [timing, speed] of [
    ['recorded', 1],
    ['2x', 2],
    ['0.5x', 0.5],
  ] as const) {
    it(`with --timing ${timing} each event reaches the client when the recording says, on the replay's clock`, async () => {
      const { out, anchor, offsets } = pacedRecording(30);
      const due = dueTimes(offsets, { at: 0, offset: anchor }, speed);
      const clock = new ManualClock();
      const served = await replay(out, { timing, clock });
      const progress = new Progress();
      const run = sseArrivals(served.url, JSON.stringify(runInput()), () => clock.now(), () => progress.changed());
      const stepped = await driveClock(clock, run.done, () =>
        progress.until(() => run.arrivals.length >= writtenBy(due, clock.now()), `the events due by ${clock.now()} ms`),
      );
      const arrivals = await run.done;

      expect(arrivals).toHaveLength(offsets.length);
      // The player slept until the due times and only those (an event due within 1 ms goes with the one before).
      const sleeps = deadlinesOf(due);
      expect(stepped).toHaveLength(sleeps.length);
      stepped.forEach((at, i) => expect(at).toBeCloseTo(sleeps[i], 6));
      // Every event is recorded 30 ms after the one before: the player sleeps before each.
      expect(sleeps).toHaveLength(offsets.length);
      // Each event was written at its due time, never before it: the client sees the recorded gaps, scaled.
      arrivals.forEach((at, i) => {
        expect(at, `event ${i}: due at ${due[i]}`).toBeLessThanOrEqual(due[i] + 1e-6);
        expect(at, `event ${i}: due at ${due[i]}`).toBeGreaterThan(due[i] - 1);
      });
    });
  }

  it('with --timing none a long stream never waits: it is served whole while the clock stands still', async () => {
    const input = runInput();
    const events = [
      { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
      { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' },
      ...Array.from({ length: 60 }, (_, i) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: `tok${i} ` })),
      { type: EventType.TEXT_MESSAGE_END, messageId: 'm1' },
      { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
    ];
    // Recorded 100 ms apart, 6.3 s in all: a paced replay would sleep before every event.
    const { out, live } = pacedRecording(100, events);

    const clock = new ManualClock();
    const served = await replay(out, { timing: 'none', clock });
    const again = await within(rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(input)), 'the replayed stream');
    expect(again.body.toString()).toBe(live);
    expect(clock.deadlines).toEqual([]);
  });

  it('with --timing recorded a plain HTTP answer is held until its last recorded chunk is due, then sent whole', async () => {
    // An answer whose body ended 50 ms after its request (the exchange starts at 10 ms).
    const out = writeNdjsonRecording([
      {
        transport: 'http',
        method: 'GET',
        path: '/answer',
        status: 200,
        responseHeaders: { 'content-type': 'application/json' },
        messages: [{ sender: 'server', json: { answer: 42 }, tOffsetMs: 60 }],
      },
    ]);

    const clock = new ManualClock();
    const served = await replay(out, { timing: 'recorded', clock });
    let answered = false;
    const answer = rawRequest({ url: served.url }, 'GET', '/answer').finally(() => (answered = true));
    expect(await within(clock.sleeping(), 'the player to wait')).toBeCloseTo(50, 6);
    expect(answered).toBe(false);
    clock.advanceTo(clock.nextDeadline()!);
    const res = await within(answer, 'the answer');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('{"answer":42}');
    expect(clock.deadlines).toHaveLength(1);
  });

  // The one test on the real clock. It asserts order only, never how long anything took: the
  // pacing itself is checked on the manual clock above.
  it('on the system clock, a paced replay serves every event, in the recorded order', async () => {
    const { out, live, offsets } = pacedRecording(10);
    const served = await replay(out, { timing: '2x' });
    const again = await within(rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(runInput())), 'the replayed stream');
    expect(sseBlocks(again.body)).toHaveLength(offsets.length);
    expect(again.body.toString()).toBe(live);
  });
});

describe('proxy replay: matching', () => {
  it('answers a changed request body with a RUN_ERROR that names the differing field; the log keeps the full report', async () => {
    const a = await agui();
    const first = await record(a.url);
    await rawRequest({ url: first.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(inputSaying('hello')));
    await first.finish();
    const served = await replay(first.out);
    // Volatile ids alone never make a miss...
    const ok = await rawRequest({ url: served.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(inputSaying('hello', 'other-thread', 'other-run')));
    expect(ok.status).toBe(200);
    // ...a changed message does: AG-UI's own error, a RUN_ERROR event on the stream.
    const miss = await rawRequest({ url: served.url }, 'POST', '/agent', SSE_HEADERS, JSON.stringify(inputSaying('bonjour')));
    expect(miss.status).toBe(200);
    expect(miss.headers['content-type']).toBe('text/event-stream');
    const event = JSON.parse(miss.body.toString().replace(/^data: /, ''));
    expect(event).toMatchObject({ type: 'RUN_ERROR', code: 'replay_miss' });
    expect(event.message).toContain('nearest is exchange 1 (POST /agent); differs in /messages/0/content');
    const wrongPath = await rawRequest({ url: served.url }, 'POST', '/other?x=1', SSE_HEADERS, JSON.stringify(inputSaying('hello')));
    expect(JSON.parse(wrongPath.body.toString().replace(/^data: /, '')).message).toContain('differs in path, query');
    expect(served.missed).toEqual([
      expect.objectContaining({
        reason: 'no-match',
        request: expect.objectContaining({ method: 'POST', path: '/agent', query: '', body: expect.objectContaining({ messages: [expect.objectContaining({ content: 'bonjour' })] }) }),
        nearest: { exchangeId: 1, method: 'POST', path: '/agent' },
        differences: ['/messages/0/content'],
      }),
      expect.objectContaining({ differences: ['path', 'query'] }),
    ]);
  });

  it('--ignore drops a field from matching', async () => {
    const a = await agui();
    const first = await record(a.url);
    await rawRequest({ url: first.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(inputSaying('hello')));
    await first.finish();
    const served = await replay(first.out, { ignore: ['/messages/*/content'] });
    const res = await rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(inputSaying('anything')));
    expect(res.status).toBe(200);
  });

  it('20 parallel runs recorded together replay correctly: each client gets the run its request asked for', async () => {
    const a = await agui({ script: echoAguiScript, eventDelayMs: 5 });
    const first = await record(a.url);
    const texts = Array.from({ length: 20 }, (_, i) => `question ${i % 10}`); // 10 distinct bodies, each twice
    await Promise.all(texts.map((t, i) => rawRequest({ url: first.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(inputSaying(t, `thread-${i}`, `run-${i}`)))));
    await first.finish();

    const served = await replay(first.out, { timing: 'recorded' });
    const results = await Promise.all(
      texts.map((t, i) => rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(inputSaying(t, `live-thread-${i}`, `live-run-${i}`)))),
    );
    results.forEach((res, i) => {
      expect(res.status).toBe(200);
      const events = sseBlocks(res.body).map((b) => JSON.parse(b.toString().slice('data: '.length)) as Record<string, unknown>);
      expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
      expect(events[0]).toMatchObject({ threadId: `live-thread-${i}`, runId: `live-run-${i}` });
      expect(events[2].delta).toBe(`you said ${texts[i]}`);
    });
    expect(served.unused()).toEqual([]);
    expect(served.misses()).toEqual([]);
  });
});

describe('proxy replay: endings', () => {
  it('replays a run the upstream reset mid-stream: the recorded events, then an abrupt end', async () => {
    const a = await agui({ script: 'reset-mid-stream', resetAfterEvents: 3 });
    const first = await record(a.url);
    const res = await fetch(first.url, { method: 'POST', headers: SSE_HEADERS, body: JSON.stringify(runInput()) });
    await res.arrayBuffer().catch(() => undefined);
    const reader = await first.finish();
    expect(reader.exchanges()[0]).toMatchObject({ outcome: 'aborted', errorCode: 'E_UPSTREAM_RESET' });

    const served = await replay(first.out);
    const again = await fetch(served.url, { method: 'POST', headers: SSE_HEADERS, body: JSON.stringify(runInput()) });
    expect(again.status).toBe(200);
    const chunks: Buffer[] = [];
    const bodyReader = again.body!.getReader();
    let failed = false;
    try {
      for (;;) {
        const { done, value } = await bodyReader.read();
        if (done) break;
        chunks.push(Buffer.from(value));
      }
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(sseBlocks(Buffer.concat(chunks))).toHaveLength(3);
  });

  it("replays the proxy's own 502 for an unreachable upstream", async () => {
    const port = await closedPort();
    const first = await record(`http://127.0.0.1:${port}`);
    const live = await rawRequest({ url: first.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(runInput()));
    expect(live.status).toBe(502);
    await first.finish();
    const served = await replay(first.out);
    const again = await rawRequest({ url: served.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(runInput()));
    expect(again.status).toBe(502);
    expect(JSON.parse(again.body.toString())).toEqual(JSON.parse(live.body.toString()));
  });

  it('listens on a unix socket (owner-only)', async () => {
    const a = await agui({ eventDelayMs: 30 });
    const first = await record(a.url);
    await rawRequest({ url: first.url }, 'POST', '/', SSE_HEADERS, JSON.stringify(runInput()));
    await first.finish();
    const socketPath = scratch().file('replay.sock');
    const served = await startReplay({ recording: first.out, listen: `unix:${socketPath}`, timing: 'none' });
    expect(served.url).toBe(`unix:${socketPath}`);
    expect(served.wsUrl).toBe(`ws+unix://${socketPath}:`);
    const { statSync } = await import('node:fs');
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    const res = await rawRequest({ socketPath }, 'POST', '/', SSE_HEADERS, JSON.stringify(runInput()));
    expect(res.status).toBe(200);
    expect(sseBlocks(res.body)).toHaveLength(14);
    const summary = await within(served.close(), 'the replay to close');
    expect(summary).toMatchObject({ misses: [], unused: [], ok: true });
  });

  it('close() ends a stream still playing with a clean end of the body, without waiting for its pace', async () => {
    const { out, anchor, offsets } = pacedRecording(60);
    const due = dueTimes(offsets, { at: 0, offset: anchor });
    const clock = new ManualClock();
    const served = await replay(out, { timing: 'recorded', clock });
    const progress = new Progress();
    const run = sseArrivals(served.url, JSON.stringify(runInput()), () => clock.now(), () => progress.changed());
    // Step the clock until three events are out, then leave the player waiting for the next one: only close() can end the stream.
    for (;;) {
      await within(clock.sleeping(), 'the player to wait for its next event');
      await progress.until(() => run.arrivals.length >= writtenBy(due, clock.now()), `the events due by ${clock.now()} ms`);
      if (run.arrivals.length >= 3) break;
      clock.advanceTo(clock.nextDeadline()!);
    }
    const seen = run.arrivals.length;
    await within(served.close(), 'the replay to close');
    const arrivals = await within(run.done, 'the body to end');
    expect(arrivals).toHaveLength(seen);
    expect(seen).toBeLessThan(14);
  });
});

/**
 * Posts a run with node:http and stamps each SSE block's arrival with `now()` (the replay's manual
 * clock); `arrived` is told after each. `done` resolves with the stamps once the body has ended.
 */
function sseArrivals(url: string, body: string, now: () => number, arrived: () => void): { arrivals: number[]; done: Promise<number[]> } {
  const arrivals: number[] = [];
  const done = new Promise<number[]>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: SSE_HEADERS }, (res) => {
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          arrivals.push(now());
          pending = pending.slice(end + 2);
          arrived();
        }
      });
      res.on('end', () => resolve(arrivals));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  return { arrivals, done };
}

describe('proxy replay: ids the client mints', () => {
  /** Answers each run and echoes its input back in a MESSAGES_SNAPSHOT, as many agent frameworks do. */
  function snapshotScript(input: RunAgentInput): BaseEvent[] {
    const reply = `a-${input.messages.length}`;
    return [
      { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
      { type: EventType.TEXT_MESSAGE_START, messageId: reply, role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: reply, delta: `answer ${input.messages.length}` },
      { type: EventType.TEXT_MESSAGE_END, messageId: reply },
      { type: EventType.MESSAGES_SNAPSHOT, messages: [...input.messages, { id: reply, role: 'assistant', content: `answer ${input.messages.length}` }] },
      { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
    ] as BaseEvent[];
  }

  /**
   * A chat client as UIs write it: every message it adds gets a fresh id (`<prefix>-<n>`), and so does
   * the tool call it makes itself on the second turn. Two runs on one HttpAgent, the second carrying
   * the history the first one's snapshot left.
   */
  async function chat(url: string, prefix: string) {
    let n = 0;
    const mint = () => `${prefix}-${++n}`;
    const agent = new HttpAgent({ url, threadId: `${prefix}-thread` });
    agent.addMessage({ id: mint(), role: 'user', content: 'What time is it?' });
    await agent.runAgent({ runId: `${prefix}-run-1` });
    const call = mint();
    agent.addMessage({ id: mint(), role: 'assistant', toolCalls: [{ id: call, type: 'function', function: { name: 'clock', arguments: '{}' } }] });
    agent.addMessage({ id: mint(), role: 'tool', toolCallId: call, content: '12:00' });
    await agent.runAgent({ runId: `${prefix}-run-2` });
    return agent.messages as Message[];
  }

  it('a client that mints fresh message and tool-call ids on every run is served, and the echoes carry its ids', async () => {
    const a = await agui({ script: snapshotScript });
    const first = await record(a.url);
    const recorded = await chat(`${first.url}/agent`, 'rec');
    await first.finish();

    const served = await replay(first.out);
    const second = await record(served.url);
    const replayed = await chat(`${second.url}/agent`, 'live');
    await second.finish();

    expect(served.misses()).toEqual([]);
    expect(served.unused()).toEqual([]);
    expect(served.served.map((s) => s.exchangeId)).toEqual([1, 2]);
    // The snapshots name the live client's messages and tool call, not the recorded ones.
    const ids = Object.fromEntries(['1', '2', '3', '4'].map((n) => [`rec-${n}`, `live-${n}`]));
    expect(replayed).toEqual(rewrite(recorded, ids));
    expect(JSON.stringify(replayed)).not.toContain('rec-');
    expect(replayed.map((m) => m.id)).toEqual(['live-1', 'a-1', 'live-3', 'live-4', 'a-4']);
    // diff sees the two sessions as one: the minted ids are compared by where they first appear.
    expect(diffRecordingFiles(first.out, second.out).exchanges).toEqual([]);
  });
});
