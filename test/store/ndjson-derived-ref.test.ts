import { describe, expect, it } from 'vitest';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { PROTOCOLS } from '../../src/protocols/modules.js';
import { derivedSchemaRef, derivedSchemaRefOfText } from '../../src/store/ndjson-derived-ref.js';
import { isCompactJson } from '../../src/core/compact-json-text.js';
import { testRegistry } from '../support/shared.js';
import { PROTOCOL_EXAMPLES } from '../protocols/protocol-examples.js';

const registry = testRegistry();

/** The protocols whose refs an NDJSON version 3 line leaves out: their token streams and frames are most of a recording. */
const DERIVED = ['agui', 'anthropic', 'openai', 'pi-daemon-rpc'];

describe('derivedSchemaRef (NDJSON version 3)', () => {
  it.each(PROTOCOLS.map((p) => [p.id, p] as const))('%s: a derived ref is the one its checker judges the message by, on its stand-in conversation', (id, module) => {
    const examples = PROTOCOL_EXAMPLES[id]();
    if (!DERIVED.includes(id)) {
      // Judged by refs of their state (a negotiated version, a route and status): none is derived.
      for (const message of examples.conversation) expect(derivedSchemaRef(id, message.sender, message.carrier, message.value)).toBeUndefined();
      return;
    }
    const requestBody = examples.channels.find((c) => c.requestBody !== undefined)?.requestBody;
    const checker = module.createChecker({ registry, secrets: new SecretTracker(), requestBody, channel: { transport: examples.channels[0].transport, path: examples.channels[0].path } });
    let derived = 0;
    for (const message of examples.conversation) {
      const ref = derivedSchemaRef(id, message.sender, message.carrier, message.value);
      const verdict = checker.judge(message);
      if (ref === undefined) continue;
      derived++;
      expect({ value: message.value, ref }).toEqual({ value: message.value, ref: verdict.schemaRef });
    }
    // A protocol that derives none would make every line of it carry its ref again.
    expect(derived).toBeGreaterThan(0);
  });

  it('derives nothing for a message that is no JSON object, or of no protocol', () => {
    expect(derivedSchemaRef('agui', 'server', 'event', ['RUN_STARTED'])).toBeUndefined();
    expect(derivedSchemaRef('agui', 'server', 'event', { type: 'not an event type' })).toBeUndefined();
    expect(derivedSchemaRef(null, 'server', 'event', { type: 'RUN_STARTED' })).toBeUndefined();
    expect(derivedSchemaRef('pi-daemon-rpc', 'server', 'frame', { kind: 'toString' })).toBeUndefined();
  });

  it('derives the same ref from a JSON text in JSON.stringify\'s form as from its value, on every stand-in message and odd ones', () => {
    const odd: unknown[] = [
      { type: 'RUN_STARTED', nested: { type: 'RUN_FINISHED' } },
      { nested: { type: 'TEXT_MESSAGE_CONTENT' }, type: 'RUN_FINISHED' },
      { type: 'TEXT_MESSAGE_\nCONTENT' },
      { type: 'message_start', s: '"type":"ping"' },
      { s: '{"type":"ping"}', type: 'content_block_delta' },
      { kind: 'event', x: { kind: 'command' } },
      { kind: 'toString' },
      { kind: 'constructor' },
      { type: 42, kind: ['event'] },
      { object: 'chat.completion.chunk', choices: [{ error: 1 }] },
      { object: 'chat.completion.chunk', error: null },
      { error: { object: 'chat.completion.chunk' }, object: 'chat.completion.chunk' },
      { object: 'chat.completion.chunk\u0000' },
      { type: 'message_stop', '': { '': [] } },
      [{ type: 'RUN_STARTED' }],
      'RUN_STARTED',
      null,
      {},
    ];
    const messages: Array<{ sender: 'client' | 'server'; carrier: string; value: unknown }> = [];
    for (const id of PROTOCOLS.map((p) => p.id)) messages.push(...PROTOCOL_EXAMPLES[id]().conversation);
    for (const value of odd) for (const sender of ['client', 'server'] as const) for (const carrier of ['event', 'body', 'frame']) messages.push({ sender, carrier, value });
    let derived = 0;
    for (const protocol of [...PROTOCOLS.map((p) => p.id), null]) {
      for (const m of messages) {
        const text = JSON.stringify(m.value);
        expect(isCompactJson(text), text).toBe(true);
        const ref = derivedSchemaRef(protocol, m.sender, m.carrier, m.value);
        if (ref !== undefined) derived++;
        expect(derivedSchemaRefOfText(protocol, m.sender, m.carrier, text), `${protocol} ${m.sender} ${m.carrier} ${text}`).toBe(ref);
      }
    }
    expect(derived).toBeGreaterThan(50);
  });
});
