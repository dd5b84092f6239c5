/** judge/protocol-choice.ts: how record and validate both pick the protocol a stream is judged by. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProtocolUnknownError, UsageError } from '../../src/core/errors.js';
import { chooseProtocol, parseProtocolOption } from '../../src/judge/protocol-choice.js';
import { PROTOCOLS, sniffMessage } from '../../src/protocols/modules.js';
import type { ChannelHint } from '../../src/protocols/protocol.js';
import { PROTOCOL_EXAMPLES } from '../protocols/protocol-examples.js';
import { startRecorder, startStdioRecorder, validateInput, SchemaRegistry, type ProtocolId } from '../../src/index.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';

useCleanups();

const aguiEvents = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }];
const acpFrames = [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }, { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } }];

describe('parseProtocolOption', () => {
  it('reads auto as undefined, a known id as itself, and refuses anything else with a usage error of its own code', () => {
    expect(parseProtocolOption(undefined)).toBeUndefined();
    expect(parseProtocolOption('auto')).toBeUndefined();
    expect(parseProtocolOption('pi-rest')).toBe('pi-rest');
    expect(() => parseProtocolOption('soap')).toThrow(UsageError);
    expect(() => parseProtocolOption('soap')).toThrow(expect.objectContaining({ code: 'E_PROTOCOL_UNKNOWN', name: 'ProtocolUnknownError' }));
    expect(() => parseProtocolOption('soap')).toThrow("unknown protocol 'soap'; expected auto or one of agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, mcp, unix-ndjson, json-rpc");
  });
});

describe('chooseProtocol', () => {
  it('takes --protocol over everything the channel and the messages say', () => {
    expect(chooseProtocol({ forced: 'acp', hint: { transport: 'http', method: 'GET', path: '/v1/session/a' }, sample: aguiEvents })?.module.id).toBe('acp');
    expect(chooseProtocol({ forced: 'acp', recorded: 'pi-rpc' })?.module.id).toBe('acp');
  });

  it("takes a recording's choice (none too) over what the channel and the messages say", () => {
    expect(chooseProtocol({ recorded: 'acp', hint: { transport: 'stdio' }, sample: aguiEvents })?.module.id).toBe('acp');
    expect(chooseProtocol({ recorded: null, hint: { transport: 'http', method: 'GET', path: '/v1/session/a' }, sample: acpFrames })).toBeUndefined();
  });

  it('takes what the channel says (record has only that), and its messages only when the channel says nothing', () => {
    expect(chooseProtocol({ hint: { transport: 'http', method: 'GET', path: '/v1/session/a' } })?.module.id).toBe('pi-rest');
    expect(chooseProtocol({ hint: { transport: 'ws', path: '/v1/session/a/apc', subprotocol: 'agent-client-protocol.v1' }, sample: aguiEvents })?.module.id).toBe('acp');
    expect(chooseProtocol({ hint: { transport: 'ws', path: '/chat' } })).toBeUndefined();
    expect(chooseProtocol({ hint: { transport: 'ws', path: '/chat' }, sample: acpFrames })?.module.id).toBe('acp');
    expect(chooseProtocol({ sample: [{ hello: 1 }] })).toBeUndefined();
  });

  it("lets an SSE stream's events outvote its channel, and the majority of the first messages outvote one odd one", () => {
    const sse = { transport: 'sse' as const, method: 'POST', path: '/v1/session/a/rpc', contentType: 'text/event-stream' };
    expect(chooseProtocol({ hint: sse, sample: aguiEvents })?.module.id).toBe('agui');
    expect(chooseProtocol({ sample: [acpFrames[0], ...aguiEvents] })?.module.id).toBe('agui');
  });
});

describe('an unknown protocol id through the API', () => {
  const soap = 'soap' as ProtocolId;
  const unknown = (where: string) => expect.objectContaining({ code: 'E_PROTOCOL_UNKNOWN', message: `${where}: unknown protocol 'soap'; expected one of agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, mcp, unix-ndjson, json-rpc, openai` });

  it('startRecorder refuses it before it listens or makes a recording', async () => {
    const out = scratch().file('r.db');
    await expect(startRecorder({ target: 'http://127.0.0.1:9', listen: 0, out, protocol: soap })).rejects.toThrow(unknown('startRecorder protocol'));
    expect(existsSync(out)).toBe(false);
  });

  it('startStdioRecorder refuses it before it starts the agent', async () => {
    const out = scratch().file('r.db');
    await expect(startStdioRecorder({ command: process.execPath, args: ['-e', ''], out, protocol: 'soap' as 'acp' })).rejects.toThrow(unknown('startStdioRecorder protocol'));
    expect(existsSync(out)).toBe(false);
  });

  it('validateInput refuses it, and a recording that names one this version does not know says which exchange', () => {
    const registry = SchemaRegistry.load({ useEnv: false });
    const input = { file: 'x.json', format: 'ndjson' as const, streams: [{ label: 'x.json', messages: [{ value: { type: 'RUN_STARTED' }, index: 0, carrier: 'line' as const }] }] };
    expect(() => validateInput(input, registry, soap)).toThrow(unknown('validateInput protocol'));
    const recorded = { ...input, format: 'capture' as const, streams: [{ ...input.streams[0], label: '#3 GET /x', protocol: soap }] };
    expect(() => validateInput(recorded, registry)).toThrow(ProtocolUnknownError);
    expect(() => validateInput(recorded, registry)).toThrow("x.json: #3 GET /x was recorded as protocol 'soap', which this version does not know; name one with --protocol");
    // Named, it is judged by that one.
    expect(validateInput(recorded, registry, 'agui').protocols).toEqual(['agui']);
  });
});

/**
 * The property behind every choice: traffic of one protocol is never judged by another's rules. Each
 * protocol's representative traffic (its contract examples), under its own channels and under channels
 * that say nothing, with every prefix of its conversation as the sample (a stream's first messages
 * vote), chooses that protocol, the protocol it is a dialect of, or none. Traffic of protocols the
 * proxy has no module for (MCP, Anthropic, as their official SDKs send it) chooses none, except
 * MCP's JSON-RPC on a stream, which is plain json-rpc; OpenAI's chooses openai.
 */
describe('no protocol claims traffic that is not its own', () => {
  const allowed = (id: ProtocolId) => {
    const module = PROTOCOLS.find((p) => p.id === id)!;
    return [id, module.dialectOf, undefined];
  };

  it.each(PROTOCOLS.map((p) => [p.id, p] as const))('%s traffic chooses itself, its base, or none', (id, module) => {
    const { channels, conversation } = PROTOCOL_EXAMPLES[id]();
    const values = conversation.map((m) => m.value);
    const hints: Array<ChannelHint | undefined> = [undefined, ...channels, ...module.transports.map((transport) => ({ transport }))];
    const wrong: string[] = [];
    for (const hint of hints) {
      for (let n = 0; n <= values.length; n++) {
        const chosen = chooseProtocol({ ...(hint ? { hint } : {}), ...(n > 0 ? { sample: values.slice(0, n) } : {}) })?.module.id;
        if (!allowed(id).includes(chosen)) wrong.push(`${JSON.stringify(hint)} with the first ${n} messages: ${chosen}`);
      }
    }
    for (const value of values) {
      const sniffed = sniffMessage(value)?.id;
      if (!allowed(id).includes(sniffed)) wrong.push(`${JSON.stringify(value).slice(0, 100)} sniffed as ${sniffed}`);
    }
    expect(wrong).toEqual([]);
  });

  const mcpInitialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
  const mcp = [
    mcpInitialize,
    { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 1, result: { tools: [] } },
  ];
  const openAiRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], stream: true };
  const openAi = [
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
    { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] },
    { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress' } },
    { type: 'response.output_text.delta', sequence_number: 1, item_id: 'i', output_index: 0, content_index: 0, delta: 'Hi' },
  ];
  const anthropicRequest = { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], stream: true };
  const anthropic = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm' } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    { type: 'ping' },
    { type: 'message_stop' },
    { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end_turn' },
  ];
  const http = (path: string, requestBody: unknown, transport: 'http' | 'sse' = 'http'): ChannelHint => ({
    transport,
    method: 'POST',
    path,
    requestBody,
    contentType: transport === 'sse' ? 'text/event-stream' : 'application/json',
  });

  it('MCP over HTTP is mcp by its POSTed methods and its headers; a plain JSON-RPC POST is nobody\'s', () => {
    const session = { 'Mcp-Session-Id': 's-1' };
    const claimed: Array<[ChannelHint, string]> = [
      [http('/mcp', mcpInitialize, 'sse'), 'POST of MCP method initialize'],
      [http('/mcp', mcp[2]), 'POST of MCP method notifications/initialized'],
      [http('/mcp', [mcp[3]]), 'POST of MCP method tools/list'],
      [{ ...http('/mcp', { jsonrpc: '2.0', id: 5, result: {} }), requestHeaders: session }, 'JSON-RPC POST with Mcp-Session-Id'],
      [{ ...http('/messages', { jsonrpc: '2.0', id: 5, result: {} }), requestHeaders: { 'mcp-protocol-version': '2025-11-25' } }, 'JSON-RPC POST with MCP-Protocol-Version'],
      [{ transport: 'sse', method: 'GET', path: '/mcp', contentType: 'text/event-stream', requestHeaders: session }, 'GET with Mcp-Session-Id'],
      [{ transport: 'http', method: 'DELETE', path: '/mcp', requestHeaders: session }, 'DELETE with Mcp-Session-Id'],
    ];
    for (const [hint, evidence] of claimed) expect(chooseProtocol({ hint }), JSON.stringify(hint)).toMatchObject({ module: { id: 'mcp' }, evidence });
    const plain = [
      http('/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }),
      http('/rpc', { jsonrpc: '2.0', id: 1, result: {} }),
      http('/rpc', []),
      { transport: 'sse', method: 'GET', path: '/mcp', contentType: 'text/event-stream' } as ChannelHint,
      { transport: 'http', method: 'DELETE', path: '/mcp' } as ChannelHint,
    ];
    for (const hint of plain) expect(chooseProtocol({ hint }), JSON.stringify(hint)).toBeUndefined();
    // The older HTTP+SSE transport's GET stream names no MCP header: its InitializeResult chooses it.
    expect(chooseProtocol({ hint: plain[3], sample: [mcp[1]] })).toMatchObject({ module: { id: 'mcp' }, evidence: 'MCP InitializeResult' });
  });

  it.each([
    ['Anthropic', [http('/v1/messages', anthropicRequest, 'sse'), http('/v1/messages', { ...anthropicRequest, stream: false })], anthropic],
  ] as const)('%s over HTTP chooses no protocol', (_name, hints, values) => {
    for (const hint of hints) {
      for (let n = 0; n <= values.length; n++) {
        expect(chooseProtocol({ hint, ...(n > 0 ? { sample: values.slice(0, n) } : {}) }), `${JSON.stringify(hint)} with ${n} messages`).toBeUndefined();
      }
    }
  });

  it('OpenAI over HTTP chooses openai, at /v1 and under a compatible server\'s mount', () => {
    const hints: ChannelHint[] = [
      http('/v1/chat/completions', openAiRequest, 'sse'),
      http('/v1/chat/completions', { ...openAiRequest, stream: false }),
      http('/api/v1/chat/completions', openAiRequest, 'sse'),
      http('/v1/responses', { model: 'm', input: 'Hi', stream: true }, 'sse'),
      { transport: 'http', method: 'GET', path: '/v1/models' },
    ];
    for (const hint of hints) {
      for (let n = 0; n <= openAi.length; n++) expect(chooseProtocol({ hint, ...(n > 0 ? { sample: openAi.slice(0, n) } : {}) })?.module.id, `${JSON.stringify(hint)} with ${n} messages`).toBe('openai');
    }
  });

  it('MCP on stdio or in a file is mcp from its first method on, never ACP, and says which message chose it', () => {
    for (const hint of [{ transport: 'stdio' }, { transport: 'file' }] as ChannelHint[]) {
      for (let n = 1; n <= mcp.length; n++) expect(chooseProtocol({ hint, sample: mcp.slice(0, n) })?.module.id).toBe('mcp');
    }
    expect(chooseProtocol({ hint: { transport: 'stdio' }, sample: mcp })?.evidence).toBe('MCP method initialize (4 of 5 messages)');
    // ACP's initialize (a numeric protocolVersion) is ACP's, MCP's (a date) is MCP's.
    expect(chooseProtocol({ hint: { transport: 'stdio' }, sample: [acpFrames[0]] })?.module.id).toBe('acp');
    expect(chooseProtocol({ hint: { transport: 'stdio' }, sample: [mcpInitialize] })?.module.id).toBe('mcp');
  });

  it('MCP on a WebSocket, which MCP does not run over, is plain json-rpc until an ACP method says otherwise', () => {
    for (let n = 1; n <= mcp.length; n++) expect(chooseProtocol({ hint: { transport: 'ws', path: '/mcp' }, sample: mcp.slice(0, n) })?.module.id).toBe('json-rpc');
    expect(chooseProtocol({ hint: { transport: 'ws' }, sample: mcp })?.evidence).toBe('JSON-RPC request initialize (5 of 5 messages)');
    expect(chooseProtocol({ hint: { transport: 'ws' }, sample: [...mcp, acpFrames[0]] })).toMatchObject({ module: { id: 'acp' }, evidence: 'ACP method initialize (1 of 6 messages)' });
  });
});
