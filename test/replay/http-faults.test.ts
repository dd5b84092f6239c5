/**
 * `--fault` over HTTP replay: what real clients see when a replayed answer is held back (latency),
 * spaced out (gap), cut short (cut) or answered with a status in place of the recording (status).
 * Recordings are made here, through the proxy, from stand-ins; latency and gap run on a manual clock.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { ProtobufHttpAgent, startAguiAgent } from '../support/agui-agent.js';
import { onCleanup, record, replay, useCleanups } from './replay-helpers.js';
import { rawRequest, runInput, sseBlocks } from '../record/record-helpers.js';
import { driveClock, ManualClock, Progress } from '../support/manual-clock.js';
import { within } from '../support/waits.js';

useCleanups();

const SSE_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' };
const RUN_BODY = JSON.stringify(runInput());

/** A recording of one AG-UI run (POST /agent) of the stand-in, made with `Agent`: SSE or protobuf. */
async function aguiRecording(Agent: typeof HttpAgent = HttpAgent): Promise<{ out: string; events: BaseEvent[] }> {
  const agent = await startAguiAgent();
  onCleanup(() => agent.close());
  const rec = await record(agent.url);
  const live = await runAgui(Agent, `${rec.url}/agent`);
  expect(live.failed).toBeUndefined();
  await rec.finish();
  return { out: rec.out, events: live.seen };
}

/** One run of the official client: the events it handed on, and what it failed with (undefined: it finished). */
async function runAgui(Agent: typeof HttpAgent, url: string): Promise<{ seen: BaseEvent[]; failed: unknown; runFailed: unknown }> {
  const agent = new Agent({ url, threadId: 'thread-1', initialMessages: [{ id: 'u1', role: 'user', content: 'Hi' }], fetch: quietCancelFetch });
  const seen: BaseEvent[] = [];
  let failed: unknown;
  let runFailed: unknown;
  try {
    await agent.runAgent({ runId: 'run-1' }, { onEvent: ({ event }) => void seen.push(event), onRunFailed: ({ error }) => void (runFailed = error) });
  } catch (error) {
    failed = error;
  }
  return { seen, failed, runFailed };
}

/**
 * fetch, except that cancelling a body that has already failed does not reject: @ag-ui/client 1.0.0's
 * teardown cancels the failed body and rethrows that rejection where nothing catches it (vitest would
 * report it as an unhandled error). The failure itself still reaches runAgent through the read.
 */
const quietCancelFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const body = res.body;
  if (body) {
    const getReader = body.getReader.bind(body) as () => ReadableStreamDefaultReader<Uint8Array>;
    Object.defineProperty(body, 'getReader', {
      value: () => {
        const reader = getReader();
        const cancel = reader.cancel.bind(reader);
        Object.defineProperty(reader, 'cancel', { value: (reason?: unknown) => cancel(reason).catch(() => undefined) });
        return reader;
      },
    });
  }
  return res;
};

/** An upstream whose every answer is numbered (`{"n":1}`, `{"n":2}` …), recorded `times` times for `GET /count`. */
async function countingRecording(times: number): Promise<string> {
  let n = 0;
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ n: ++n }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  const rec = await record(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  for (let i = 0; i < times; i++) await rawRequest({ url: rec.url }, 'GET', '/count');
  await rec.finish();
  return rec.out;
}

async function getJson(url: string): Promise<{ status: number; body: unknown; type: string | null }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

describe('--fault cut: the official AG-UI client sees the stream break off', () => {
  for (const [transport, Agent] of [
    ['sse', HttpAgent],
    ['proto', ProtobufHttpAgent],
  ] as const) {
    it(`cut=clean,after=3 (${transport}): exactly 3 events, no RUN_FINISHED, and the stream ends as if the agent had stopped`, async () => {
      const { out, events } = await aguiRecording(Agent);
      expect(events.length).toBeGreaterThan(4);
      const served = await replay(out, { faults: ['cut=clean,after=3'] });
      const run = await runAgui(Agent, `${served.url}/agent`);
      expect(run.seen.map((e) => e.type)).toEqual(events.slice(0, 3).map((e) => e.type));
      expect(run.seen.some((e) => e.type === EventType.RUN_FINISHED)).toBe(false);
      expect(run.failed).toBeUndefined();
      expect(served.served).toMatchObject([{ exchangeId: 1, transport, messages: 3, faults: ['cut=clean,after=3'] }]);
      expect((await served.close()).faults).toEqual([{ spec: 'cut=clean,after=3', injected: 1 }]);
    });

    it(`cut=reset,after=3 (${transport}): exactly 3 events, then the run fails with a network error`, async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined); // the client logs the failure too
      onCleanup(() => void vi.restoreAllMocks());
      const { out } = await aguiRecording(Agent);
      const served = await replay(out, { faults: ['cut=reset,after=3'] });
      const run = await runAgui(Agent, `${served.url}/agent`);
      expect(run.seen).toHaveLength(3);
      expect(run.seen.some((e) => e.type === EventType.RUN_FINISHED)).toBe(false);
      expect(run.failed).toBeInstanceOf(Error);
      expect(run.runFailed).toBe(run.failed);
      expect(String((run.failed as Error).cause)).toMatch(/other side closed|ECONNRESET/);
      expect(served.served).toMatchObject([{ messages: 3, faults: ['cut=reset,after=3'] }]);
    });
  }

  it("error=500,after=3: the official client gets 3 events and then the run's RUN_ERROR naming the spec; a protobuf stream just ends", async () => {
    const { out, events } = await aguiRecording();
    const served = await replay(out, { faults: ['error=500,after=3'] });
    const run = await runAgui(HttpAgent, `${served.url}/agent`);
    expect(run.seen.slice(0, 3).map((e) => e.type)).toEqual(events.slice(0, 3).map((e) => e.type));
    expect(run.seen.slice(3)).toEqual([{ type: EventType.RUN_ERROR, message: 'a 500 error event injected by --fault error=500,after=3', code: 'fault_injected' }]);
    expect(served.served).toMatchObject([{ messages: 3, faults: ['error=500,after=3'] }]);
    const proto = await aguiRecording(ProtobufHttpAgent);
    const servedProto = await replay(proto.out, { faults: ['error=500,after=3'] });
    const protoRun = await runAgui(ProtobufHttpAgent, `${servedProto.url}/agent`);
    expect(protoRun.seen.map((e) => e.type)).toEqual(proto.events.slice(0, 3).map((e) => e.type));
    expect(protoRun.failed).toBeUndefined();
  });

  it('cut=reset,after=0 on a plain answer resets before a byte; cut=clean,after=0 sends the recorded head with an empty body', async () => {
    const out = await countingRecording(2);
    const served = await replay(out, { faults: ['cut=reset,after=0,nth=1', 'cut=clean,after=0,nth=2'] });
    const reset = await fetch(`${served.url}/count`).then(
      () => 'answered',
      (error: Error) => String(error.cause),
    );
    expect(reset).toMatch(/other side closed|ECONNRESET|socket hang up/);
    const clean = await fetch(`${served.url}/count`);
    expect(clean.status).toBe(200);
    expect(clean.headers.get('content-type')).toBe('application/json');
    expect(await clean.text()).toBe('');
    expect(served.served.map((e) => [e.exchangeId, e.messages, e.faults])).toEqual([
      [1, 0, ['cut=reset,after=0,nth=1']],
      [2, 0, ['cut=clean,after=0,nth=2']],
    ]);
  });
});

describe('--fault status', () => {
  it('status=503,nth=3: the third request gets 503 naming the spec, and its retry gets the third recorded answer', async () => {
    const out = await countingRecording(4);
    const served = await replay(out, { faults: ['status=503,nth=3'] });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await getJson(`${served.url}/count`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 503, 200, 200]);
    expect(answers.map((a) => a.body)).toEqual([
      { n: 1 },
      { n: 2 },
      { error: { code: 'fault_injected', message: 'status 503 injected by --fault status=503,nth=3', fault: 'status=503,nth=3' } },
      { n: 3 },
      { n: 4 },
    ]);
    expect(answers[2].type).toMatch(/^application\/json/);
    expect(served.served.map((e) => [e.exchangeId, e.status, e.faultStatus, e.faults])).toEqual([
      [1, 200, undefined, undefined],
      [2, 200, undefined, undefined],
      [3, 503, 503, ['status=503,nth=3']],
      [3, 200, undefined, undefined],
      [4, 200, undefined, undefined],
    ]);
    const summary = await served.close();
    expect(summary.faults).toEqual([{ spec: 'status=503,nth=3', injected: 1 }]);
    expect(summary.unused).toEqual([]);
    expect(summary.misses).toEqual([]);
  });

  it('answers a request that would miss too, without reporting a miss; a spec that selected nothing is tallied 0', async () => {
    const out = await countingRecording(1);
    const served = await replay(out, { faults: ['status=500,path=/elsewhere/**', 'status=502,method=DELETE'] });
    const answer = await getJson(`${served.url}/elsewhere/a/b`);
    expect(answer).toMatchObject({ status: 500, body: { error: { code: 'fault_injected', fault: 'status=500,path=/elsewhere/**' } } });
    expect(served.served).toMatchObject([{ exchangeId: null, path: '/elsewhere/a/b', faultStatus: 500 }]);
    expect(served.missed).toEqual([]);
    const summary = await served.close();
    expect(summary.faults).toEqual([
      { spec: 'status=500,path=/elsewhere/**', injected: 1 },
      { spec: 'status=502,method=DELETE', injected: 0 },
    ]);
  });
});

describe('--fault latency and gap, on the replay clock', () => {
  it('latency=2s holds a plain answer, head included, until the clock reaches 2 s', async () => {
    const out = await countingRecording(1);
    const clock = new ManualClock();
    const served = await replay(out, { clock, faults: ['latency=2s'] });
    let answered = false;
    const answer = rawRequest({ url: served.url }, 'GET', '/count').finally(() => (answered = true));
    expect(await within(clock.sleeping(), 'the replay to hold the answer')).toBe(2000);
    expect(answered).toBe(false);
    expect(served.served).toEqual([]);
    clock.advanceTo(2000);
    const res = await within(answer, 'the answer');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ n: 1 });
    expect(clock.deadlines).toEqual([2000]);
  });

  it('latency=1s,gap=100ms on a stream: nothing before 1 s, then one event per 100 ms', async () => {
    const agent = await startAguiAgent();
    onCleanup(() => agent.close());
    const rec = await record(agent.url);
    const events = sseBlocks((await rawRequest({ url: rec.url }, 'POST', '/agent', SSE_HEADERS, RUN_BODY)).body);
    await rec.finish();
    const clock = new ManualClock();
    const served = await replay(rec.out, { clock, faults: ['latency=1s', 'gap=100ms'] });
    const progress = new Progress();
    let head: number | undefined;
    const run = sseArrivals(served.url, clock, progress, (at) => (head = at));
    const steps: number[] = [];
    const stepped = await driveClock(clock, run.done, () => {
      steps.push(clock.now());
      // Before each step: the head (from the first step on) and one event per step so far have arrived.
      return progress.until(() => (steps.length === 1 || head !== undefined) && run.arrivals.length === steps.length - 1, `event ${steps.length - 1} to arrive`);
    });
    const arrivals = await run.done;
    expect(head).toBe(1000);
    expect(arrivals).toEqual(events.map((_, i) => 1000 + 100 * i));
    expect(stepped).toEqual(events.map((_, i) => 1000 + 100 * i));
    expect(served.served).toMatchObject([{ messages: events.length, faults: ['latency=1s', 'gap=100ms'] }]);
  });

  it('latency holds a miss answer too, and the miss names the spec', async () => {
    const out = await countingRecording(1);
    const clock = new ManualClock();
    const served = await replay(out, { clock, faults: ['latency=500ms'] });
    let answered = false;
    const answer = rawRequest({ url: served.url }, 'GET', '/other').finally(() => (answered = true));
    expect(await within(clock.sleeping(), 'the replay to hold the miss answer')).toBe(500);
    expect(answered).toBe(false);
    clock.advanceTo(500);
    const res = await within(answer, 'the miss answer');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: { code: 'replay_miss', faults: ['latency=500ms'] } });
    expect(served.missed).toMatchObject([{ request: { path: '/other' }, faults: ['latency=500ms'] }]);
    expect((await served.close()).faults).toEqual([{ spec: 'latency=500ms', injected: 1 }]);
  });

  it('a held answer goes at once when the replay shuts down', async () => {
    const out = await countingRecording(1);
    const clock = new ManualClock();
    const served = await replay(out, { clock, faults: ['latency=3600s'] });
    const answer = rawRequest({ url: served.url }, 'GET', '/count');
    await within(clock.sleeping(), 'the replay to hold the answer');
    await within(served.close(), 'the replay to close');
    expect((await within(answer, 'the answer')).status).toBe(200);
  });
});

/** Reads an SSE stream; stamps the head and each event with the clock's time when it arrives. */
function sseArrivals(url: string, clock: ManualClock, progress: Progress, onHead: (at: number) => void): { arrivals: number[]; done: Promise<number[]> } {
  const arrivals: number[] = [];
  const done = new Promise<number[]>((resolve, reject) => {
    const req = httpRequest(`${url}/agent`, { method: 'POST', headers: SSE_HEADERS }, (res) => {
      onHead(clock.now());
      progress.changed();
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          arrivals.push(clock.now());
          pending = pending.slice(end + 2);
          progress.changed();
        }
      });
      res.on('end', () => resolve(arrivals));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(RUN_BODY);
  });
  return { arrivals, done };
}
