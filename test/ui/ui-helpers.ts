/**
 * Shared fixtures for the inspector tests: AG-UI recordings made through the real recorder, a big
 * synthetic recording written with RecordingWriter, and the browser (playwright-core driving
 * Debian's chromium) when both are present.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRecorder, type RunningRecorder } from '../../src/capture/start-recorder.js';
import { RecordingWriter } from '../../src/store/recording-writer.js';
import { startAguiAgent, type AguiAgent } from '../support/agui-agent.js';
import { bareRegistry } from '../support/shared.js';
import { postRun, runInput } from '../record/record-helpers.js';
export { spawnCli, type CliProcess } from '../cli/run-cli.js';

export const CHROMIUM = '/usr/bin/chromium';

/** One run through the proxy: the scenario is picked per request by the stand-in's `/scenario/<name>` path. */
export async function sendRun(recorderUrl: string, scenario: string, n: number): Promise<void> {
  const res = await postRun(`${recorderUrl}/scenario/${scenario}`, {}, runInput(`thread-${n}`, `run-${n}`));
  await res.arrayBuffer();
}

/** Records the scenarios, one AG-UI run each, in order, into `file`. */
export async function recordAgui(file: string, scenarios: string[]): Promise<void> {
  const agent = await startAguiAgent();
  let recorder: RunningRecorder | undefined;
  try {
    recorder = await startRecorder({ target: agent.url, listen: 0, out: file, registry: bareRegistry(), pipeline: 'inline' });
    let n = 0;
    for (const scenario of scenarios) await sendRun(recorder.url, scenario, ++n);
  } finally {
    await recorder?.close();
    await agent.close();
  }
}

/** A live recorder in front of a fresh stand-in; close() stops both. */
export async function liveRecorder(file: string, listener: Parameters<typeof startRecorder>[0]['listener']): Promise<{ recorder: RunningRecorder; agent: AguiAgent; close(): Promise<void> }> {
  const agent = await startAguiAgent();
  const recorder = await startRecorder({ target: agent.url, listen: 0, out: file, registry: bareRegistry(), pipeline: 'inline', listener });
  return {
    recorder,
    agent,
    async close() {
      await recorder.close();
      await agent.close();
    },
  };
}

/**
 * A synthetic recording: one SSE exchange carrying `count` AG-UI events (every 1000th one invalid),
 * written straight with RecordingWriter, for the paging and page-load measurements.
 */
export function writeBigRecording(file: string, count: number): void {
  const writer = RecordingWriter.open(file, { toolVersion: 'test', target: 'http://127.0.0.1:1', mode: 'record', schemaHashes: {}, startedAt: new Date('2026-01-01T00:00:00Z') });
  const id = writer.beginExchange({ transport: 'sse', protocol: 'agui', method: 'POST', path: '/big', requestHeaders: { 'content-type': 'application/json' }, tOffsetMs: 0 });
  writer.updateExchange(id, { status: 200, responseHeaders: { 'content-type': 'text/event-stream' } });
  const input = { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  writer.addMessage({ exchangeId: id, sender: 'client', carrier: 'body', tOffsetMs: 0, raw: Buffer.from(JSON.stringify(input)), json: input, verdict: { status: 'valid', findings: [] } });
  for (let i = 1; i <= count; i++) {
    const event = i === 1 ? { type: 'RUN_STARTED', threadId: 't', runId: 'r' } : { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: `tick ${i} ` };
    const invalid = i % 1000 === 0;
    const findings = invalid ? [{ rule: 'synthetic', severity: 'error' as const, pointer: '/delta', message: 'synthetic finding' }] : [];
    const raw = Buffer.from(`data: ${JSON.stringify(event)}\n\n`);
    writer.addMessage({ exchangeId: id, sender: 'server', carrier: 'event', tOffsetMs: i * 0.01, raw, json: event, verdict: { status: invalid ? 'invalid' : 'valid', findings } });
  }
  writer.endExchange(id, { outcome: 'complete', tOffsetMs: count * 0.01 + 1 });
  writer.close();
}

export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'agent-proxy-ui-'));
}

/** The Chromium launch arguments that work in a container without a sandbox or a GPU. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the browser tests cannot run here, or undefined when they can. */
export async function browserUnavailable(): Promise<string | undefined> {
  if (!existsSync(CHROMIUM)) return `no ${CHROMIUM} (apt-get install chromium)`;
  try {
    await import('playwright-core');
  } catch {
    return 'playwright-core is not installed (npm i -D playwright-core)';
  }
  return undefined;
}

