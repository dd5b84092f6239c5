/**
 * The transport contract for HTTP with SSE: the AG-UI stand-in agent behind `startRecorder`, replayed
 * by `startReplay`, and a node:http client that reads the event stream as it arrives. Every leg is a
 * unix socket, whose small kernel buffers a flood of about 1.5 MB outgrows.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { defaultAguiScript, startAguiAgent } from '../support/agui-agent.js';
import { onCleanup } from '../support/cleanups.js';
import { bareRegistry } from '../support/shared.js';
import { scratch } from '../support/temp-dir.js';
import { runInput } from '../record/record-helpers.js';
import { startRecorder } from '../../src/record/start-recorder.js';
import { startReplay } from '../../src/replay/start-replay.js';
import type { ReplayMiss } from '../../src/replay/replay-context.js';
import { missMessage } from '../../src/replay/miss-message.js';
import { protocolById } from '../../src/protocols/modules.js';
import { describeTransportContract, type ClientRun, type Ending, type Script } from './transport-contract.js';

const FLOOD = 48;
const FLOOD_DELTA = 'x'.repeat(32 * 1024);

/** The stand-in's runs: its default one, or a flood of large text deltas, each numbered. */
function script(input: RunAgentInput): BaseEvent[] {
  if ((input.messages[0] as { content?: string }).content !== 'flood') return defaultAguiScript(input);
  const { threadId, runId } = input;
  return [
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'flood-1', role: 'assistant' },
    ...Array.from({ length: FLOOD }, (_, i) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'flood-1', delta: `${i}:${FLOOD_DELTA}` })),
    { type: EventType.TEXT_MESSAGE_END, messageId: 'flood-1' },
    { type: EventType.RUN_FINISHED, threadId, runId },
  ] as BaseEvent[];
}

/** What each script asks: the path (the stand-in's own scenario that resets mid-stream) and the user's text. */
const ASKED: Record<Script, { path: string; text: string }> = {
  conversation: { path: '/agent', text: 'Hi' },
  flood: { path: '/agent', text: 'flood' },
  'peer-closes': { path: '/scenario/reset-mid-stream', text: 'Hi' },
};

function body(script: Script, ids: string, text = ASKED[script].text): string {
  const input = runInput(`thread-${ids}`, `run-${ids}`);
  return JSON.stringify({ ...input, messages: [{ id: 'u1', role: 'user', content: text }] });
}

/** A run over node:http: the SSE events as they arrive, split on their blank line. */
function run(socketPath: string, script: Script, ids: string, text?: string): ClientRun {
  const messages: string[] = [];
  let paused = false;
  let left = false;
  let response: IncomingMessage | undefined;
  let settle!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (settle = resolve));
  const end = (ending: Ending) => settle(left ? { kind: 'left' } : ending);
  const req: ClientRequest = httpRequest({ socketPath, method: 'POST', path: ASKED[script].path, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) => {
    response = res;
    if (paused) res.pause();
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => end({ kind: 'status', status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      return;
    }
    let pending = '';
    res.setEncoding('latin1');
    res.on('data', (chunk: string) => {
      pending += chunk;
      for (let at = pending.indexOf('\n\n'); at >= 0; at = pending.indexOf('\n\n')) {
        messages.push(pending.slice(0, at + 2));
        pending = pending.slice(at + 2);
      }
    });
    res.on('end', () => end({ kind: 'ended' }));
    res.on('error', () => end({ kind: 'reset' }));
    res.on('aborted', () => end({ kind: 'reset' }));
  });
  req.on('error', () => end({ kind: 'reset' }));
  req.end(body(script, ids, text));
  onCleanup(() => void req.destroy());
  return {
    messages,
    head: () => response && `${response.statusCode} ${response.headers['content-type']}`,
    ended,
    pause: () => {
      paused = true;
      response?.pause();
    },
    resume: () => {
      paused = false;
      response?.resume();
    },
    // HTTP/1.1 has no way to leave a response politely: both drop the connection.
    leave: () => {
      left = true;
      req.destroy();
      settle({ kind: 'left' });
    },
  };
}

describeTransportContract({
  name: 'HTTP with SSE (AG-UI)',
  faults: {
    latency: 'acts',
    gap: 'acts',
    status: 'acts',
    error: 'acts',
    cut: 'acts',
    close: { notApplicable: 'a WebSocket close code; an HTTP stream has none' },
    exit: { notApplicable: 'the exit of a stdio agent; an HTTP peer is no child process' },
  },
  endings: { finished: { kind: 'ended' }, clean: { kind: 'ended' }, reset: { kind: 'reset' } },
  sessionsPerProxy: 'many',
  peerClosesAfter: 4,
  flood: {
    count: FLOOD,
    index: (message) => {
      const found = /"delta":"(\d+):x/.exec(message);
      return found ? Number(found[1]) : undefined;
    },
  },

  async record(dir = scratch('agent-proxy-contract-')) {
    const agent = await startAguiAgent({ script, listen: { path: dir.file('agent.sock') } });
    onCleanup(() => agent.close());
    const recorder = await startRecorder({ target: agent.url, listen: `unix:${dir.file('proxy.sock')}`, out: dir.file('http.db'), registry: bareRegistry(), pipeline: 'inline' });
    onCleanup(async () => void (await recorder.close()));
    const socketPath = recorder.url.slice('unix:'.length);
    return {
      converse: (script, ids) => run(socketPath, script, ids),
      floodTaken: () => Math.max(0, (agent.requests.at(-1)?.eventsSent ?? 0) - 2),
      peerSawLeave: async () => {
        if (!(await agent.requests.at(-1)!.aborted)) throw new Error('the run ended without its client leaving');
      },
      finish: async () => {
        await recorder.close();
        await agent.close();
        return recorder.out;
      },
    };
  },

  async replay(recording, options = {}) {
    const missed: ReplayMiss[] = [];
    const socketPath = scratch('agent-proxy-contract-').file('replay.sock');
    const replay = await startReplay({ recording, listen: `unix:${socketPath}`, timing: 'none', faults: options.faults, clock: options.clock, log: { served: () => undefined, miss: (m) => missed.push(m) } });
    onCleanup(async () => void (await replay.close()));
    return {
      converse: (script, ids) => run(socketPath, script, ids),
      async miss() {
        const answer = run(socketPath, 'conversation', 'idMiss', 'never recorded');
        await answer.ended;
        const request = { method: 'POST', path: '/agent', headers: {}, body: JSON.parse(body('conversation', 'idMiss', 'never recorded')) as unknown };
        const { transport: _t, action: _a, ...details } = missed[0];
        const expected = protocolById('agui').replay!.missAnswers!.http!(request, { message: missMessage(missed[0]), details }, {});
        return { received: answer.messages.join(''), expected: expected.body.toString('latin1') };
      },
      close: async () => (await replay.close()).faults,
    };
  },
});
