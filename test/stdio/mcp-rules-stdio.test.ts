/**
 * MCP's rules through `record --stdio` (the recorder in-process, `startStdioRecorder`), against the
 * stand-in server of test/support/stdio-mcp-server.mjs, which breaks each server-side rule on cue; the
 * test is the client, writing raw lines, and breaks the client-side ones. A correct session draws no
 * finding; in a broken one each finding sits on the message that broke the rule.
 */
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startStdioRecorder } from '../../src/record/relay/stdio-recorder.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { waitFor, within } from '../support/waits.js';
import { readRecording } from './stdio-helpers.js';

const MCP_SERVER = fileURLToPath(new URL('../support/stdio-mcp-server.mjs', import.meta.url));
const { scratch } = fixturesAfterEach();

type Json = Record<string, unknown>;

/** A client writing raw lines to the recorder, and reading what the server sent through it. */
async function session(breaks: string[] = []) {
  const out = scratch().file('mcp.db');
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const received: Json[] = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      try {
        received.push(JSON.parse(line) as Json);
      } catch {
        // The stand-in's log line on stdout: the recorder judges it, the client skips it.
      }
    }
  });
  const recorder = await startStdioRecorder({
    command: process.execPath,
    args: [MCP_SERVER],
    env: { ...process.env, MCP_STANDIN_BREAK: breaks.join(',') },
    out,
    stdin,
    stdout,
    stderr: new PassThrough().resume(),
  });
  let seen = 0;
  const client = {
    /** Writes lines in one chunk, so the recorder reads them before the server can answer. */
    write(...messages: Array<Json | string>) {
      stdin.write(messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n').join(''));
    },
    /** The next message from the server that `match` accepts (those before it are passed over). */
    async next(match: (m: Json) => boolean, what: string): Promise<Json> {
      return waitFor(() => {
        const i = received.findIndex((m, at) => at >= seen && match(m));
        if (i < 0) return undefined;
        seen = i + 1;
        return received[i];
      }, what, { wakeOn: [[stdout, 'data']] });
    },
    response: (id: unknown) => client.next((m) => m.id === id && m.method === undefined, `the response to ${JSON.stringify(id)}`),
    request: (method: string) => client.next((m) => m.method === method && 'id' in m, `the server's ${method}`),
    /** The stored messages (after close). */
    stored: () => {
      const { exchanges, messages } = readRecording(out);
      return messages(exchanges[0].id);
    },
    async close(): Promise<Array<[string, string]>> {
      stdin.end();
      await within(recorder.done, 'the recording to close');
      const { exchanges, messages } = readRecording(out);
      expect(exchanges).toMatchObject([{ transport: 'stdio', protocol: 'mcp' }]);
      // Each finding as [what the message was, rule].
      return messages(exchanges[0].id)
        .filter((m) => m.channel !== 'stderr')
        .flatMap((m) => m.verdict.findings.map((f): [string, string] => [labelOf(m.sender, m.json as Json | null), f.rule]));
    },
  };
  return client;
}

function labelOf(sender: string, json: Json | null): string {
  if (json === null || json === undefined) return `${sender} non-JSON`;
  if (!('id' in json) && json.jsonrpc === undefined) return `${sender} JSON log`;
  if (typeof json.method === 'string') return `${sender} ${json.method}${'id' in json ? ` #${JSON.stringify(json.id)}` : ''}`;
  return `${sender} response #${JSON.stringify(json.id)}`;
}

const rpc = (id: unknown, method: string, params?: Json): Json => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const note = (method: string, params?: Json): Json => ({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
const ok = (id: unknown, result: Json = {}): Json => ({ jsonrpc: '2.0', id, result });
const initialize = (id: unknown, capabilities: Json = {}) => rpc(id, 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw-client', version: '1.0.0' } });
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} };
/** 2026-07-28: a listen whose id tells the stand-in what its stream does (`unacked`, `teardown` …), for the notifications `filter` asks for. */
const listen = (id: string, filter: Json = {}) => rpc(id, 'subscriptions/listen', { _meta: MODERN_META, notifications: filter });
const naming = (method: string, id: string) => (m: Json) => m.method === method && ((m.params as Json | undefined)?._meta as Json | undefined)?.['io.modelcontextprotocol/subscriptionId'] === id;
const breakCall = (id: number, rule: string, token?: string) => rpc(id, 'tools/call', { name: 'break', arguments: { rule }, ...(token ? { _meta: { progressToken: token } } : {}) });

describe('MCP rules over stdio, against a stand-in server that breaks them on cue', () => {
  it('draws no finding from a correct session', async () => {
    const client = await session();
    client.write(initialize(0));
    await client.response(0);
    client.write(note('notifications/initialized'), rpc(1, 'tools/list'));
    await client.response(1);
    client.write(rpc(2, 'tools/call', { name: 'echo', arguments: { message: 'hi', apiToken: 'tok-live-123' }, _meta: { progressToken: 'p-2' } }));
    await client.response(2);
    client.write(rpc(3, 'ping'), note('notifications/cancelled', { requestId: 3, reason: 'changed my mind' }));
    await client.response(3);
    // A listed tool's call whose arguments and structuredContent keep to its schemas.
    client.write(rpc(4, 'tools/call', { name: 'weather', arguments: { city: 'Oslo' } }));
    await client.response(4);
    expect(await client.close()).toEqual([]);
    // A tool argument named like a secret is stored redacted; the server got it as sent.
    const call = client.stored().find((m) => (m.json as Json | null)?.method === 'tools/call');
    expect(call?.json).toMatchObject({ params: { arguments: { message: 'hi', apiToken: '<redacted>' } } });
    expect(call?.raw.toString('utf8')).not.toContain('tok-live-123');
  });

  it('catches every rule the server breaks, on the message that breaks it', async () => {
    const client = await session(['stdout-log', 'early-request']);
    client.write(initialize(0, { roots: {} }));
    await client.response(0);
    const roots = await client.request('roots/list');
    client.write(ok(roots.id, { roots: [] }), note('notifications/initialized'));
    let id = 1;
    for (const rule of ['progress-not-increasing', 'progress-after-response', 'progress-unknown-token', 'cancel-unknown', 'result-and-error', 'unknown-response', 'schema']) {
      client.write(breakCall(id, rule, `p-${id}`));
      await client.response(id++);
    }
    client.write(breakCall(id, 'duplicate-response'));
    await client.response(id);
    await client.response(id++);
    for (const [rule, requests] of [['capability', 1], ['wrong-direction', 1], ['id-reused', 2], ['null-id', 1]] as const) {
      client.write(breakCall(id, rule));
      for (let n = 0; n < requests; n++) {
        const asked = await client.next((m) => typeof m.method === 'string' && 'id' in m, `the server's request for ${rule}`);
        client.write(asked.method === 'tools/list' ? ok(asked.id, { tools: [] }) : asked.method === 'ping' ? ok(asked.id) : { jsonrpc: '2.0', id: asked.id, error: { code: -1, message: 'declined' } });
      }
      await client.response(id++);
    }
    const findings = await client.close();
    expect(findings).toEqual([
      // A line that is not JSON is invalid-json, as on every stdio channel; JSON that is no JSON-RPC message is MCP's.
      ['server non-JSON', 'invalid-json'],
      ['server JSON log', 'mcp-not-json-rpc'],
      ['server roots/list #"srv-0"', 'mcp-request-before-initialized'],
      ['server notifications/progress', 'mcp-progress-not-increasing'],
      ['server notifications/progress', 'mcp-progress-after-response'],
      ['server notifications/progress', 'mcp-progress-unknown-token'],
      ['server notifications/cancelled', 'mcp-cancel-unknown-request'],
      ['server response #5', 'jsonrpc-result-and-error'],
      ['server response #"nobody-asked"', 'jsonrpc-unknown-response-id'],
      ['server response #7', 'schema'],
      ['server response #8', 'jsonrpc-duplicate-response'],
      ['server sampling/createMessage #"srv-1"', 'mcp-capability-not-negotiated'],
      ['server tools/list #"srv-2"', 'mcp-wrong-direction'],
      ['server ping #"srv-dup"', 'mcp-request-id-reused'],
      ['server ping #null', 'schema'],
      ['server ping #null', 'mcp-null-request-id'],
      ['client response #null', 'schema'],
    ]);
  });

  it('catches every rule the client breaks, on the message that breaks it', async () => {
    const client = await session();
    // tools/list in the same chunk as initialize: before the server could answer it.
    client.write(initialize(0), rpc(1, 'tools/list'));
    await client.response(1);
    client.write(rpc(2, 'tools/list'));
    await client.response(2);
    client.write(note('notifications/initialized'), initialize(3));
    await client.response(3);
    client.write(rpc(null, 'ping'));
    await client.response(null);
    client.write(rpc(4, 'ping'));
    await client.response(4);
    client.write(rpc(4, 'ping'));
    await client.response(4);
    client.write(note('notifications/cancelled', { requestId: 0 }), note('notifications/cancelled', { requestId: 'x' }));
    client.write(rpc(5, 'tools/call', { name: 'echo', arguments: { message: 'a' }, _meta: { progressToken: 't' } }), rpc(6, 'tools/call', { name: 'echo', arguments: { message: 'b' }, _meta: { progressToken: 't' } }));
    await client.response(6);
    client.write(rpc(7, 'resources/subscribe', { uri: 'file:///a' }), 'not json at all');
    await client.response(7);
    const findings = await client.close();
    expect(findings).toEqual([
      ['client tools/list #1', 'mcp-request-before-initialized'],
      ['client tools/list #2', 'mcp-request-before-initialized'],
      ['client initialize #3', 'mcp-initialize-repeated'],
      ['client ping #null', 'schema'],
      ['client ping #null', 'mcp-null-request-id'],
      ['server response #null', 'schema'],
      ['client ping #4', 'mcp-request-id-reused'],
      ['client notifications/cancelled', 'mcp-cancel-initialize'],
      ['client notifications/cancelled', 'mcp-cancel-unknown-request'],
      ['client tools/call #6', 'mcp-progress-token-reused'],
      ['client resources/subscribe #7', 'mcp-capability-not-negotiated'],
      ['client non-JSON', 'invalid-json'],
    ]);
  });

  it('catches each tool contract broken, on the message that breaks it', async () => {
    const client = await session(['unusable-schema']);
    client.write(initialize(0));
    await client.response(0);
    client.write(note('notifications/initialized'), rpc(1, 'tools/list'));
    await client.response(1);
    const calls: Array<[string, Json]> = [
      ['weather', { city: 'Oslo' }],
      ['weather', {}],
      ['weather', { city: 'Nowhere' }],
      ['forecast', { city: 'Oslo' }],
      ['fetcher', { url: 42 }],
    ];
    for (const [i, [name, args]] of calls.entries()) {
      client.write(rpc(2 + i, 'tools/call', { name, arguments: args }));
      await client.response(2 + i);
    }
    expect(await client.close()).toEqual([
      ['server response #1', 'mcp-tool-schema-unchecked'],
      ['client tools/call #3', 'mcp-tool-arguments-invalid'],
      ['server response #4', 'mcp-tool-structured-content-invalid'],
      ['client tools/call #5', 'mcp-tool-unknown'],
    ]);
  });

  it('judges 2026-07-28 listen subscriptions, which share the channel, each by its id: only the broken ones are caught', async () => {
    const client = await session();
    client.write(listen('ok-tools', { toolsListChanged: true }), listen('ok-prompts', { promptsListChanged: true }));
    await client.next(naming('notifications/prompts/list_changed', 'ok-prompts'), 'the prompts subscription\'s notification');
    // The server ends one subscription by cancelling its listen, another with its result.
    client.write(listen('teardown-1', { toolsListChanged: true }));
    await client.next((m) => m.method === 'notifications/cancelled', 'the server ending subscription teardown-1');
    client.write(listen('result-2'));
    await client.response('result-2');
    // The client cancels one; a notification that crossed the cancellation is no finding.
    client.write(listen('late-3', { toolsListChanged: true }));
    await client.next(naming('notifications/tools/list_changed', 'late-3'), 'the notification of late-3');
    client.write(note('notifications/cancelled', { requestId: 'late-3' }), note('notifications/cancelled', { requestId: 'ok-tools' }));
    await client.next(naming('notifications/tools/list_changed', 'late-3'), 'the late notification of late-3');
    // The broken ones, each caught on the message that breaks its rule.
    client.write(listen('unacked-1', { toolsListChanged: true }), listen('anonymous-2', { toolsListChanged: true }), listen('unasked-3', { toolsListChanged: true }), listen('stray-4'), listen('unacked+result-5'));
    await client.response('unacked+result-5');
    // ok-prompts and unacked-1 … are still open when the session ends: a listen owes no answer while it lives.
    expect(await client.close()).toEqual([
      ['server notifications/tools/list_changed', 'mcp-listen-not-acknowledged-first'],
      ['server notifications/tools/list_changed', 'mcp-listen-subscription-id'],
      ['server notifications/resources/list_changed', 'mcp-listen-not-requested'],
      ['server notifications/tools/list_changed', 'mcp-listen-subscription-id'],
      ['server response #"unacked+result-5"', 'mcp-listen-not-acknowledged-first'],
    ]);
  });

  it('catches a session that does not start with initialize', async () => {
    const client = await session();
    client.write(rpc(1, 'tools/list'));
    await client.response(1);
    expect(await client.close()).toEqual([['client tools/list #1', 'mcp-initialize-not-first']]);
  });
});
