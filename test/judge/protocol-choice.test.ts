/** judge/protocol-choice.ts: how record and validate both pick the protocol a stream is judged by. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProtocolUnknownError, UsageError } from '../../src/core/errors.js';
import { chooseProtocol, parseProtocolOption } from '../../src/judge/protocol-choice.js';
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
    expect(() => parseProtocolOption('soap')).toThrow("unknown protocol 'soap'; expected auto or one of agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, unix-ndjson, json-rpc");
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
  const unknown = (where: string) => expect.objectContaining({ code: 'E_PROTOCOL_UNKNOWN', message: `${where}: unknown protocol 'soap'; expected one of agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, unix-ndjson, json-rpc` });

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
