import { describe, expect, it } from 'vitest';
import { piRpcProtocol } from '../../../src/protocols/pi-rpc/index.js';
import {
  PI_RPC_COMMAND_REF,
  PI_RPC_EVENT_REF,
  PI_RPC_EXTENSION_UI_RESPONSE_REF,
  PI_RPC_RESPONSE_REF,
} from '../../../src/protocols/pi-rpc/schema-refs.js';
import { SchemaRegistry } from '../../../src/schema/schema-registry.js';
import { PI_SESSION_API_ID } from '../../../src/protocols/pi-rest/schemas.js';
import { bareRegistry, registryWithout } from '../../support/shared.js';
import { Conversation } from './conversation.js';

const REFS = [PI_RPC_COMMAND_REF, PI_RPC_RESPONSE_REF, PI_RPC_EVENT_REF, PI_RPC_EXTENSION_UI_RESPONSE_REF];

/**
 * A real SchemaRegistry that loaded no document at all: what a location looks like when its
 * schema is missing. (The project schema is always loaded by `load`, so this is the only way
 * to see the path; the constructor is private to TypeScript only.)
 */
function emptyRegistry(): SchemaRegistry {
  return new (SchemaRegistry as unknown as new (documents: Map<string, unknown>) => SchemaRegistry)(new Map());
}

describe('pi-rpc without the dashboard and schedule schemas', () => {
  it('the registry says the raw Pi RPC $defs reach no other document, though others in the same file do', () => {
    const without = registryWithout('https://a.skh.am/pi-daemon/dashboard-api.schema.json', 'https://a.skh.am/pi-daemon/schedule.schema.json');
    // Some session-api $defs need dashboard-api or schedule...
    expect(without.unresolvedRefs().some((u) => u.from === PI_SESSION_API_ID)).toBe(true);
    // ...but none of the ones raw Pi RPC uses.
    for (const ref of REFS) expect(without.check(ref), ref).toMatchObject({ ok: true });
    for (const ref of REFS) expect(bareRegistry().check(ref), ref).toMatchObject({ ok: true });
  });
});

describe('pi-rpc when the session-api schema is not loaded', () => {
  it('judges a command unchecked with the reason, never valid', () => {
    const verdict = new Conversation(piRpcProtocol, emptyRegistry(), 'line').client({ id: 'a', type: 'get_state' });
    expect(verdict.status).toBe('unchecked');
    expect(verdict.schemaRef).toBe(PI_RPC_COMMAND_REF);
    expect(verdict.reason).toContain(PI_SESSION_API_ID);
    expect(verdict.reason).toContain('--schemas');
    expect(verdict.findings).toEqual([]);
  });

  it('judges events, responses and extension UI answers unchecked too', () => {
    const c = new Conversation(piRpcProtocol, emptyRegistry(), 'line');
    c.client({ id: 'a', type: 'get_state' });
    expect(c.server({ id: 'a', type: 'response', command: 'get_state', success: true })).toMatchObject({ status: 'unchecked', schemaRef: PI_RPC_RESPONSE_REF });
    expect(c.server({ type: 'agent_start' })).toMatchObject({ status: 'unchecked', schemaRef: PI_RPC_EVENT_REF });
    expect(c.client({ type: 'extension_ui_response', id: 'x', cancelled: true })).toMatchObject({ status: 'unchecked', schemaRef: PI_RPC_EXTENSION_UI_RESPONSE_REF });
  });

  it('still applies the behaviour rules: a behavioural error makes the message invalid, the reason stays', () => {
    const verdict = new Conversation(piRpcProtocol, emptyRegistry(), 'line').server({ id: 'z', type: 'response', command: 'get_state', success: true });
    expect(verdict.status).toBe('invalid');
    expect(verdict.reason).toContain(PI_SESSION_API_ID);
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'response-unknown-id', pointer: '/id' })]);
  });
});
