/**
 * The CLI's `validate` loads only the modules of the protocols its input has (judgeInputLoading),
 * telling them from the catalog's facts; the package API's validateInput has every module at hand.
 * Both must give the same report, for every protocol's stand-in traffic, and the loading one must
 * ask for no module but those of the protocols it judges by.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/schema/schema-registry.js';
import { PROTOCOL_IDS, type ProtocolId } from '../../src/protocols/catalog.js';
import { protocolById } from '../../src/protocols/modules.js';
import { judgeInput, judgeInputLoading, protocolsOfInput } from '../../src/validate/judge-input.js';
import { readMessageFile } from '../../src/validate/message-file.js';
import { validateInput } from '../../src/validate/validate-input.js';
import { PROTOCOL_EXAMPLES } from '../protocols/protocol-examples.js';
import { scratch } from '../support/temp-dir.js';

const registry = SchemaRegistry.load({ useEnv: false });

/** A protocol's stand-in conversation written as an NDJSON file and read back, as `validate` reads one. */
function exampleFile(id: ProtocolId) {
  const file = scratch('judge-input-').file(`${id}.ndjson`);
  writeFileSync(file, PROTOCOL_EXAMPLES[id]().conversation.map((m) => JSON.stringify(m.value)).join('\n') + '\n');
  return readMessageFile(file);
}

describe('judging an input with only its protocols loaded', () => {
  it.each(PROTOCOL_IDS)('gives the report validateInput gives, for %s', async (id) => {
    const input = exampleFile(id);
    expect(await judgeInputLoading(input, registry)).toEqual(validateInput(input, registry));
    expect(await judgeInputLoading(input, registry, id)).toEqual(validateInput(input, registry, id));
  });

  it('asks for the module of no protocol but those its streams are judged by', () => {
    const input = exampleFile('agui');
    expect(protocolsOfInput(input)).toEqual(['agui']);
    const asked: string[] = [];
    const report = judgeInput(input, registry, (id) => (asked.push(id), protocolById(id)));
    expect(report.protocols).toEqual(['agui']);
    expect(new Set(asked)).toEqual(new Set(['agui']));
  });
});
