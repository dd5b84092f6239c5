import { describeWithCorpus, sharedPath } from '../support/shared.js';
/**
 * schemas/openai.schema.json is what scripts/derive-openai-schemas.mjs derives from the pinned
 * OpenAI API description in ../shared, byte for byte: a hand edit, or a script changed without
 * running it again, fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';

interface DeriveScript {
  deriveOpenAiSchema(specText: Buffer): string;
}

describeWithCorpus('the shipped OpenAI schema subset', () => {
  it('is the derivation script\'s output from the pinned description', async () => {
    const script = (await import(pathToFileURL(join(REPO, 'scripts', 'derive-openai-schemas.mjs')).href)) as DeriveScript;
    const derived = script.deriveOpenAiSchema(readFileSync(sharedPath('schemas-extra', 'openai', 'openapi.json')));
    expect(readFileSync(join(REPO, 'schemas', 'openai.schema.json'), 'utf8') === derived, 'schemas/openai.schema.json differs: run node scripts/derive-openai-schemas.mjs').toBe(true);
  });

  it('refuses a description other than the pinned one', async () => {
    const script = (await import(pathToFileURL(join(REPO, 'scripts', 'derive-openai-schemas.mjs')).href)) as DeriveScript;
    expect(() => script.deriveOpenAiSchema(Buffer.from('{"openapi":"3.1.0"}'))).toThrow(/not the pinned/);
  });
});
