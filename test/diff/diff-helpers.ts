/**
 * Recordings for the diff and export tests: the AG-UI stand-in (a script per recording) and the
 * Pi daemon stand-in, recorded through startRecorder into temp dirs.
 */
import { randomUUID } from 'node:crypto';
import { EventType, type BaseEvent, type RunAgentInput } from '@ag-ui/core';
import { startRecorder } from '../../src/record/start-recorder.js';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { startAguiAgent, type AguiScript } from '../support/agui-agent.js';
import { postRun, runInput } from '../record/record-helpers.js';
import { api, bearer, daemon, onCleanup, wsOpen } from '../record/pi-helpers.js';
import { scratch } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';
import { STANDIN_SCHEMAS_DIR } from '../support/shared.js';

export { onCleanup, useCleanups } from '../record/pi-helpers.js';

let registry: SchemaRegistry | undefined;
const schemas = () => (registry ??= SchemaRegistry.load({ extraDirs: [STANDIN_SCHEMAS_DIR] }));
let bare: SchemaRegistry | undefined;
/** The schemas a recording made without `--schemas` is judged with: the shipped ones only. */
export const shippedSchemas = () => (bare ??= SchemaRegistry.load({ useEnv: false }));

/** A fresh RunAgentInput: new threadId, runId and user message id, as a real client sends. */
export const freshInput = (): RunAgentInput => ({ ...runInput(`thread-${randomUUID()}`, `run-${randomUUID()}`), messages: [{ id: randomUUID(), role: 'user', content: 'Hi' }] });

export type Step = { kind: 'run'; path?: string } | { kind: 'health' };

/** Records the steps against an AG-UI stand-in running `script`; returns the .db path. */
export async function recordAgui(script: AguiScript | undefined, steps: Step[] = [{ kind: 'run' }], name = 'rec.db'): Promise<string> {
  const agent = await startAguiAgent(script ? { script } : {});
  const out = scratch('agent-proxy-diff-').file(name);
  const recorder = await startRecorder({ target: agent.url, listen: 0, out, registry: schemas() });
  try {
    for (const step of steps) {
      if (step.kind === 'health') await (await fetch(`${recorder.url}/health`)).text();
      else await (await postRun(`${recorder.url}${step.path ?? '/agent'}`, {}, freshInput())).text();
    }
  } finally {
    await recorder.close();
    await agent.close();
  }
  return out;
}

/** A text run whose message text is split into the given deltas. */
export function textScript(deltas: string[], extra: (input: RunAgentInput) => BaseEvent[] = () => []): AguiScript {
  return (input) => [
    { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId, timestamp: Date.now() } as BaseEvent,
    { type: EventType.TEXT_MESSAGE_START, messageId: `msg-${randomUUID()}`, role: 'assistant' } as BaseEvent,
    ...deltas.map((delta) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: '', delta }) as BaseEvent),
    { type: EventType.TEXT_MESSAGE_END, messageId: '' } as BaseEvent,
    ...extra(input),
    { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId } as BaseEvent,
  ].map(fillMessageId);
}

/** Gives the content/end events the id of the START before them (a fresh uuid per run). */
function fillMessageId(event: BaseEvent, _i: number, all: BaseEvent[]): BaseEvent {
  const e = event as BaseEvent & { messageId?: string };
  if (e.messageId !== '') return event;
  const start = all.find((x) => x.type === EventType.TEXT_MESSAGE_START) as BaseEvent & { messageId: string };
  return { ...e, messageId: start.messageId } as BaseEvent;
}

/**
 * A Pi daemon session through the proxy: REST (capabilities, session get, a ticket polled to the
 * end) and a framed RPC WebSocket (get_state, a prompt). Returns the .db path.
 */
export async function recordPiSession(name = 'pi.db', registry: SchemaRegistry = schemas()): Promise<string> {
  const d = await daemon({ deterministic: false, closeCodeAfterPrompt: { code: 4001, reason: 'turn over' } });
  const out = scratch('agent-proxy-diff-pi-').file(name);
  let ended = 0;
  const recorder = await startRecorder({ target: d.url, listen: 0, out, registry, listener: (e) => void (e.type === 'exchange-end' && ended++) });
  onCleanup(() => recorder.close().then(() => undefined));
  const auth = bearer(d.token);
  await api(recorder.url, 'GET', '/v1/capabilities', { headers: auth });
  await api(recorder.url, 'GET', '/v1/session/agent-a', { headers: { ...auth, 'x-request-id': `req-${randomUUID()}` } });
  const ws = await wsOpen(`${recorder.url.replace(/^http/, 'ws')}/v1/session/agent-a/rpc?role=controller`, 'pi-daemon-rpc.v1', { headers: auth });
  await ws.take(1);
  ws.ws.send(JSON.stringify({ kind: 'command', command: { id: `state-${randomUUID()}`, type: 'get_state' } }));
  await ws.take(2);
  ws.ws.send(JSON.stringify({ kind: 'command', command: { id: `prompt-${randomUUID()}`, type: 'prompt', message: 'READFILE please read hello.txt' } }));
  await ws.closed;
  // Stop the recorder only once it has seen the three exchanges end (the WebSocket once both of its legs closed).
  await waitFor(() => ended >= 3, 'the three exchanges to end');
  await recorder.close();
  return out;
}
