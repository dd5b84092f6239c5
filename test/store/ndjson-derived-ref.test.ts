import { describe, expect, it } from 'vitest';
import { SecretTracker } from '../../src/judge/secret-tracker.js';
import { PROTOCOLS } from '../../src/protocols/modules.js';
import { derivedSchemaRef } from '../../src/store/ndjson-derived-ref.js';
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
});
