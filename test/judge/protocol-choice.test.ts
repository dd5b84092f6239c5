/** judge/protocol-choice.ts: how record and validate both pick the protocol a stream is judged by. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { chooseProtocol, parseProtocolOption } from '../../src/judge/protocol-choice.js';

const aguiEvents = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }];
const acpFrames = [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }, { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } }];

describe('parseProtocolOption', () => {
  it('reads auto as undefined, a known id as itself, and refuses anything else with a usage error', () => {
    expect(parseProtocolOption(undefined)).toBeUndefined();
    expect(parseProtocolOption('auto')).toBeUndefined();
    expect(parseProtocolOption('pi-rest')).toBe('pi-rest');
    expect(() => parseProtocolOption('soap')).toThrow(UsageError);
    expect(() => parseProtocolOption('soap')).toThrow("unknown protocol 'soap'; expected auto or one of agui, pi-rest, pi-daemon-rpc, pi-rpc, acp, unix-ndjson");
  });
});

describe('chooseProtocol', () => {
  it('takes --protocol over everything the channel and the messages say', () => {
    expect(chooseProtocol({ forced: 'acp', hint: { transport: 'http', method: 'GET', path: '/v1/session/a' }, sample: aguiEvents })?.id).toBe('acp');
    expect(chooseProtocol({ forced: 'acp', recorded: 'pi-rpc' })?.id).toBe('acp');
  });

  it("takes a recording's choice (none too) over what the channel and the messages say", () => {
    expect(chooseProtocol({ recorded: 'acp', hint: { transport: 'stdio' }, sample: aguiEvents })?.id).toBe('acp');
    expect(chooseProtocol({ recorded: null, hint: { transport: 'http', method: 'GET', path: '/v1/session/a' }, sample: acpFrames })).toBeUndefined();
  });

  it('takes what the channel says (record has only that), and its messages only when the channel says nothing', () => {
    expect(chooseProtocol({ hint: { transport: 'http', method: 'GET', path: '/v1/session/a' } })?.id).toBe('pi-rest');
    expect(chooseProtocol({ hint: { transport: 'ws', path: '/v1/session/a/apc', subprotocol: 'agent-client-protocol.v1' }, sample: aguiEvents })?.id).toBe('acp');
    expect(chooseProtocol({ hint: { transport: 'ws', path: '/chat' } })).toBeUndefined();
    expect(chooseProtocol({ hint: { transport: 'ws', path: '/chat' }, sample: acpFrames })?.id).toBe('acp');
    expect(chooseProtocol({ sample: [{ hello: 1 }] })).toBeUndefined();
  });

  it("lets an SSE stream's events outvote its channel, and the majority of the first messages outvote one odd one", () => {
    const sse = { transport: 'sse' as const, method: 'POST', path: '/v1/session/a/rpc', contentType: 'text/event-stream' };
    expect(chooseProtocol({ hint: sse, sample: aguiEvents })?.id).toBe('agui');
    expect(chooseProtocol({ sample: [acpFrames[0], ...aguiEvents] })?.id).toBe('agui');
  });
});
