/**
 * `proxy record` in front of the Pi daemon's ACP route (`/v1/session/{ref}/apc`, subprotocol
 * `agent-client-protocol.v1`): the official `@agentclientprotocol/sdk` ClientSideConnection runs a
 * whole conversation through the proxy against the stand-in's real AgentSideConnection, sees what
 * it sees direct, and the recording holds every JSON-RPC message, valid and correlated.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ClientSideConnection, PROTOCOL_VERSION, type SessionNotification } from '@agentclientprotocol/sdk';
import { ACP_SCHEMA_ID } from '../../src/protocols/acp/schemas.js';
import { acpStreamFromWebSocket } from '../support/acp-over-ws.js';
import { bearer, daemon, errorsOf, expectAllValid, findingsOf, onCleanup, record, useCleanups } from './pi-helpers.js';
import { within } from '../support/waits.js';

useCleanups();

interface Conversation {
  protocol: string;
  /** Every text frame, in wire order as the client saw it. */
  frames: Array<{ sender: 'client' | 'server'; data: string }>;
  results: unknown[];
  updates: SessionNotification[];
  closed: { code: number; reason: string };
}

/** initialize → session/new → prompt (text) → session/load (history) → prompt (tool call) → an unknown method → close. */
async function converse(wsBase: string, token: string): Promise<Conversation> {
  const ws = new WebSocket(`${wsBase}/v1/session/agent-a/apc`, 'agent-client-protocol.v1', { headers: { Authorization: `Bearer ${token}` } });
  onCleanup(() => ws.terminate());
  const frames: Conversation['frames'] = [];
  ws.on('message', (data) => frames.push({ sender: 'server', data: data.toString() }));
  const send = ws.send.bind(ws);
  ws.send = ((data: string, ...rest: unknown[]) => {
    frames.push({ sender: 'client', data: String(data) });
    return (send as (...args: unknown[]) => void)(data, ...rest);
  }) as typeof ws.send;
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
  const updates: SessionNotification[] = [];
  const client = new ClientSideConnection(
    () => ({
      requestPermission: async () => ({ outcome: { outcome: 'cancelled' } }),
      sessionUpdate: async (n: SessionNotification) => void updates.push(n),
    }),
    acpStreamFromWebSocket(ws),
  );

  const results: unknown[] = [];
  results.push(
    await client.initialize({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'acp-record-test', version: '1.0.0' },
    }),
  );
  const session = await client.newSession({ cwd: '/srv/work/project-a', mcpServers: [] });
  results.push(session);
  results.push(await client.prompt({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Say hello' }] }));
  results.push(await client.loadSession({ sessionId: 'agent-a', cwd: '/srv/work/project-a', mcpServers: [] }));
  results.push(await client.prompt({ sessionId: 'agent-a', prompt: [{ type: 'text', text: 'READFILE please read hello.txt' }] }));
  results.push(await client.extMethod('no/such_method', {}).catch((error: unknown) => ({ rejected: error })));
  ws.close(1000, 'bye');
  const result = await within(closed, 'the ACP connection to close');
  return { protocol: ws.protocol, frames, results, updates, closed: result };
}

describe('proxy record: ACP over the Pi daemon WebSocket', () => {
  it('runs the official ACP client through the proxy exactly as direct, and records every message valid and correlated', async () => {
    const direct = await daemon({ deterministic: true });
    const proxied = await daemon({ deterministic: true });
    const rec = await record(proxied.url);

    const expected = await converse(direct.wsUrl, direct.token);
    const seen = await converse(rec.wsUrl, proxied.token);

    // What the conversation is (so the comparison compares something).
    expect(expected.protocol).toBe('agent-client-protocol.v1');
    expect(expected.results[0]).toMatchObject({ protocolVersion: 1, agentInfo: { name: 'pi-daemon-acp' } });
    expect(expected.results[1]).toMatchObject({ sessionId: 'agent-a' });
    expect(expected.results[2]).toEqual({ stopReason: 'end_turn' });
    expect(expected.results[4]).toEqual({ stopReason: 'end_turn' });
    expect(expected.results[5]).toMatchObject({ rejected: { code: -32601 } });
    const kinds = (updates: SessionNotification[]) => updates.map((u) => u.update.sessionUpdate);
    expect(kinds(expected.updates)).toEqual(expect.arrayContaining(['available_commands_update', 'agent_message_chunk', 'user_message_chunk', 'tool_call', 'tool_call_update']));
    const text = expected.updates
      .slice(0, 6)
      .map((u) => u.update)
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u as { content: { text: string } }).content.text)
      .join('');
    expect(text).toBe('Hello from the mock model.');

    // Through the proxy: the same subprotocol, results, notifications, frames and close.
    expect(seen.protocol).toBe(expected.protocol);
    expect(seen.results).toEqual(expected.results);
    expect(seen.updates).toEqual(expected.updates);
    expect(seen.frames).toEqual(expected.frames);
    expect(seen.closed).toEqual({ code: 1000, reason: 'bye' });
    expect(expected.closed).toEqual({ code: 1000, reason: 'bye' });
    // The agent behind the proxy got the client's bearer and every message.
    const [upstream] = proxied.received.ws;
    expect(upstream).toMatchObject({ route: 'apc', protocol: 'agent-client-protocol.v1' });
    expect(upstream.headers.authorization).toBe(`Bearer ${proxied.token}`);
    expect(upstream.fromClient).toEqual(direct.received.ws[0].fromClient);
    expect(await within(upstream.closed, 'the agent to see the close')).toEqual({ code: 1000, reason: 'bye' });

    const reader = await rec.finish();
    const exchanges = reader.exchanges();
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({
      transport: 'ws',
      protocol: 'acp',
      path: '/v1/session/agent-a/apc',
      status: 101,
      subprotocol: 'agent-client-protocol.v1',
      outcome: 'complete',
      closeCode: 1000,
      closeReason: 'bye',
    });
    const messages = reader.messages(exchanges[0].id);
    const texts = messages.filter((m) => m.channel === 'text');
    expect(texts.map((m) => ({ sender: m.sender, data: m.raw.toString() }))).toEqual(seen.frames);
    expect(messages.filter((m) => m.channel === 'close').map((m) => [m.sender, m.json])).toEqual([
      ['client', { code: 1000, reason: 'bye' }],
      ['server', { code: 1000, reason: 'bye' }],
    ]);
    expectAllValid(texts, 'ACP messages');
    expect(errorsOf(messages)).toEqual([]);
    expect(findingsOf(messages)).toEqual([]);
    // Each result was checked against the ACP $def of the request it answers: correlation worked.
    const refOf = (predicate: (json: Record<string, unknown>) => boolean) =>
      texts.filter((m) => predicate(m.json as Record<string, unknown>)).map((m) => m.verdict.schemaRef?.replace(`${ACP_SCHEMA_ID}#/$defs/`, ''));
    expect(refOf((j) => j.id === 0 && 'result' in j)).toEqual(['InitializeResponse']);
    expect(refOf((j) => j.id === 1 && 'result' in j)).toEqual(['NewSessionResponse']);
    expect(refOf((j) => j.id === 2 && 'result' in j)).toEqual(['PromptResponse']);
    expect(refOf((j) => j.id === 3 && 'result' in j)).toEqual(['LoadSessionResponse']);
    expect(new Set(refOf((j) => j.method === 'session/update'))).toEqual(new Set(['SessionNotification']));
  });

  it('flags an ACP message that breaks its $def (negative control)', async () => {
    const d = await daemon({ deterministic: true });
    const rec = await record(d.url);
    const ws = new WebSocket(`${rec.wsUrl}/v1/session/agent-a/apc`, 'agent-client-protocol.v1', { headers: bearer(d.token) });
    onCleanup(() => ws.terminate());
    const answer = new Promise<string>((r) => ws.once('message', (data) => r(data.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    // session/prompt without its required `prompt`: the agent answers with an error.
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { sessionId: 'agent-a' } }));
    expect(JSON.parse(await answer)).toMatchObject({ id: 7, error: { code: -32602 } });
    ws.close(1000);
    const reader = await rec.finish();
    const [request] = reader.messages(1).filter((m) => m.sender === 'client' && m.channel === 'text');
    expect(request.verdict.status).toBe('invalid');
    expect(request.verdict.findings.some((f) => f.pointer.startsWith('/params'))).toBe(true);
  });
});
