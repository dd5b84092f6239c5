import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, Options } from 'ajv/dist/2020.js';
import { ANNOTATION_KEYWORDS, SCHEMA_FORMATS } from './schema-formats.js';

export type AjvInstance = Ajv2020Class;

/**
 * ajv, loaded when first needed and not before: most runs use the validators compiled at build time
 * and never load the compiler. It is CommonJS, so it can be loaded synchronously, where a schema
 * check is asked for.
 */
let ajvClass: typeof Ajv2020Class | undefined;

function loadAjv(): typeof Ajv2020Class {
  if (!ajvClass) {
    const module = createRequire(import.meta.url)('ajv/dist/2020.js') as { default?: typeof Ajv2020Class };
    ajvClass = (module.default ?? module) as typeof Ajv2020Class;
  }
  return ajvClass;
}

/**
 * The one ajv configuration every verdict is made with, at run time and at build time alike
 * (scripts/compile-validators.mjs adds only `code` options, which change no check).
 * `allErrors` false stops at the first error: for values too large to list every error of.
 */
export function createAjv(allErrors = true, code?: Options['code']): AjvInstance {
  const Ajv2020 = loadAjv();
  const ajv = new Ajv2020({
    strict: true,
    // The AG-UI schema lists `required` names whose `properties` come from an allOf branch.
    strictRequired: false,
    allErrors,
    allowUnionTypes: true,
    // Checking each document against the draft 2020-12 meta-schema costs most of start-up, which
    // runs while the first traffic flows; a malformed schema still fails when it is compiled.
    validateSchema: false,
    ...(code ? { code } : {}),
  });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword });
  for (const [name, format] of Object.entries(SCHEMA_FORMATS)) ajv.addFormat(name, format as Parameters<AjvInstance['addFormat']>[1]);
  return ajv;
}
