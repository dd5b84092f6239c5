/**
 * A WebSocket of plain JSON-RPC 2.0 whose methods ACP does not define, with no subprotocol or path that
 * names a protocol, through `record`: its first frames choose `json-rpc` (not ACP), and it is judged by
 * JSON-RPC's envelope and id-correlation rules only.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { startRecorder } from '../../src/record/start-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { bareRegistry } from '../support/shared.js';
import { within } from '../support/waits.js';

const cleanups = fixturesAfterEach();

/** A JSON-RPC server: `add` sums its params, `notify` is a notification it answers with one of its own; `bad` is answered under another id. */
async function jsonRpcServer(): Promise<string> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; method: string; params?: number[] };
      if (message.method === 'add') socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: (message.params ?? []).reduce((a, b) => a + b, 0) }));
      else if (message.method === 'notify') socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'progress', params: { done: true } }));
      else if (message.method === 'bad') socket.send(JSON.stringify({ jsonrpc: '2.0', id: 999, result: null }));
    });
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends each request and waits for its answer (a frame for every message but the last notification's). */
async function converse(url: string, messages: object[]): Promise<void> {
  const socket = new WebSocket(url);
  await within(new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject)), 'the WebSocket to open');
  for (const message of messages) {
    const answer = new Promise((resolve) => socket.once('message', resolve));
    socket.send(JSON.stringify(message));
    await within(answer, `the answer to ${JSON.stringify(message)}`);
  }
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.close(1000, 'done');
  await within(closed, 'the close');
}

async function recordConversation(messages: object[]): Promise<{ protocol: string | null; evidence: string | null; frames: Array<{ status: string; rules: string[] }> }> {
  const upstream = await jsonRpcServer();
  const recorder = await startRecorder({ target: upstream.replace('ws:', 'http:'), listen: 0, out: cleanups.scratch().file('rpc.db'), registry: bareRegistry() });
  cleanups.push(async () => void (await recorder.close()));
  await converse(`${recorder.url.replace('http:', 'ws:')}/socket`, messages);
  await recorder.close();
  const reader = RecordingReader.open(recorder.out);
  try {
    const [exchange] = reader.exchanges();
    const frames = reader
      .messages(exchange.id)
      .filter((m) => m.channel === 'text')
      .map((m) => ({ status: m.verdict.status, rules: m.verdict.findings.map((f) => f.rule) }));
    return { protocol: exchange.protocol, evidence: exchange.protocolEvidence, frames };
  } finally {
    reader.close();
  }
}

describe('record: a plain JSON-RPC 2.0 WebSocket', () => {
  it('is labelled json-rpc, not ACP, and its correct traffic is valid', async () => {
    const { protocol, evidence, frames } = await recordConversation([
      { jsonrpc: '2.0', id: 1, method: 'add', params: [1, 2] },
      { jsonrpc: '2.0', id: 2, method: 'add', params: [3, 4] },
      { jsonrpc: '2.0', method: 'notify' },
    ]);
    expect(protocol).toBe('json-rpc');
    // The first frames voted: what chose it is stored with the exchange.
    expect(evidence).toMatch(/^JSON-RPC request add \(\d+ of \d+ messages\)$/);
    expect(frames).toEqual(Array.from({ length: 6 }, () => ({ status: 'valid', rules: [] })));
  });

  it('is judged by JSON-RPC rules: a response under an id nobody sent is an error', async () => {
    const { protocol, frames } = await recordConversation([
      { jsonrpc: '2.0', id: 1, method: 'add', params: [1] },
      { jsonrpc: '2.0', id: 2, method: 'bad' },
    ]);
    expect(protocol).toBe('json-rpc');
    expect(frames[3]).toEqual({ status: 'invalid', rules: ['jsonrpc-unknown-response-id'] });
  });
});
