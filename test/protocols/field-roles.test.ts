import { describe, expect, it } from 'vitest';
import { parseIgnoreOption } from '../../src/core/field-specs.js';
import { REPLAY_FACTS } from '../../src/protocols/catalog.js';
import {
  diffDroppedFieldsOf,
  echoFieldsOf,
  labelledFieldsOf,
  matchIgnoredFieldsOf,
  matchLabelledFieldsOf,
  secretFieldsOf,
  writeOnlyFieldsOf,
  type DeclaresFields,
} from '../../src/protocols/field-roles.js';

/** A protocol with one field of each role; the names are chosen to mislead a guess by name. */
const EVERY_ROLE: DeclaresFields = {
  fields: {
    '/serial': 'client-id',
    '/call/ref': 'echoed-client-id',
    traceKey: { echoedFrom: ['header:x-trace', '/traceKey'] },
    '/reply/handle': 'server-id',
    '/turns/*/callRef': 'answer-id',
    batchId: 'volatile',
    '/spec/token/*': 'write-only',
    '/auth/pin': 'secret',
  },
};

describe('field roles', () => {
  it('give matching the client ids and volatile fields to ignore', () => {
    expect(matchIgnoredFieldsOf(EVERY_ROLE)).toEqual(['/serial', '/call/ref', 'traceKey', 'batchId']);
  });

  it('give matching the ids an answer minted, compared by where they recur rather than ignored', () => {
    expect(matchLabelledFieldsOf(EVERY_ROLE)).toEqual(['/turns/*/callRef']);
    expect(matchIgnoredFieldsOf(EVERY_ROLE)).not.toContain('/turns/*/callRef');
  });

  it('give replay the places echoed ids are read from, in the order declared', () => {
    expect(echoFieldsOf(EVERY_ROLE)).toEqual(['/call/ref', 'header:x-trace', '/traceKey']);
  });

  it('give replay and record the write-only fields, and record the secret ones', () => {
    expect(writeOnlyFieldsOf(EVERY_ROLE)).toEqual(['/spec/token/*']);
    expect(secretFieldsOf([EVERY_ROLE])).toEqual(['/auth/pin']);
  });

  it('give diff the ids to label and the volatile fields to drop, by role and never by name', () => {
    // `batchId` ends as an id's name does, but is declared volatile: dropped, not labelled.
    expect(diffDroppedFieldsOf(EVERY_ROLE)).toEqual(['batchId']);
    expect(labelledFieldsOf([EVERY_ROLE])).toEqual(['/serial', '/call/ref', 'traceKey', '/reply/handle', '/turns/*/callRef', '/spec/token/*']);
  });

  it('gather each field once over several protocols', () => {
    const other: DeclaresFields = { fields: { '/serial': 'client-id', '/auth/pin': 'secret' } };
    expect(labelledFieldsOf([EVERY_ROLE, other]).filter((f) => f === '/serial')).toHaveLength(1);
    expect(secretFieldsOf([EVERY_ROLE, other])).toEqual(['/auth/pin']);
  });

  it('give nothing for a protocol that declares no fields, or none', () => {
    for (const none of [undefined, {}]) {
      expect([matchIgnoredFieldsOf(none), echoFieldsOf(none), writeOnlyFieldsOf(none), diffDroppedFieldsOf(none)]).toEqual([[], [], [], []]);
    }
  });

  it('every protocol of the catalog names its fields in the notation of --ignore', () => {
    for (const facts of REPLAY_FACTS) {
      expect(() => parseIgnoreOption(Object.keys(facts.fields ?? {}), `${facts.id} fields`)).not.toThrow();
    }
  });
});
