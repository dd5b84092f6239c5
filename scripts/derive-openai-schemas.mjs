// Derives schemas/openai.schema.json, the subset of OpenAI's API description that the `openai`
// protocol judges with, from the pinned openai/openai-openapi snapshot (MIT). Run it again when the
// pin moves; never edit its output by hand (test/conformance/openai-schema-derivation.test.ts checks
// that the shipped file is this script's output).
//
//   node scripts/derive-openai-schemas.mjs [path/to/openapi.json]   writes schemas/openai.schema.json
//   node scripts/derive-openai-schemas.mjs --check [path]            exits 1 when the shipped file differs
//
// What it does to the description's component schemas, and why:
// - keeps only those reachable from the roots below (requests, answers and stream messages of the
//   routes the protocol knows), in one draft 2020-12 document: those a checker names under `$defs`,
//   the rest under `definitions`;
// - turns OpenAPI 3.0's `nullable: true`, still found in the 3.1 file, into a union with null;
// - turns `$recursiveRef` (draft 2019-09) into a `$ref` to the definition that declared the anchor;
// - lets `usage` and `user` of a Response be null, as OpenAI's own examples send them (NULL_TOO);
// - gives `type: "object"` to the few object schemas that have properties but no type (strict ajv);
// - drops annotations that check nothing (descriptions, titles, examples, defaults, the `x-*` and
//   `discriminator` extensions) and `format`, whose values there (`unixtime`, `float`) name no check.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned input: openai/openai-openapi at commit f85dbe22 (2026-08-21), info.version 2.3.0. */
export const OPENAI_SPEC_SHA256 = 'bbfd19abcde0e7412da99378deb2a959ccdd3a812f97c9e35901921e8e973f9a';
export const DEFAULT_SPEC = join(REPO, '..', 'shared', 'schemas-extra', 'openai', 'openapi.json');
export const OUTPUT = join(REPO, 'schemas', 'openai.schema.json');
export const SCHEMA_ID = 'https://agent-proxy.dev/schemas/openai-api-2.3.0.schema.json';

/** The component schemas the protocol asks for by name; everything they reach comes along. */
export const ROOTS = [
  'CreateChatCompletionRequest',
  'CreateChatCompletionResponse',
  'CreateChatCompletionStreamResponse',
  'CreateResponse',
  'Response',
  'ResponseStreamEvent',
  'CreateEmbeddingRequest',
  'CreateEmbeddingResponse',
  'ListModelsResponse',
  'ErrorResponse',
];

/**
 * Properties OpenAI's answers send as null where the description allows no null: its own examples
 * of `response.created`, `.in_progress` and `.failed` carry `"usage": null` and `"user": null`.
 */
const NULL_TOO = [
  ['Response', 'usage'],
  ['ModelResponseProperties', 'user'],
];

/** Keywords whose value is a map from names to schemas (the names are not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
/** Annotations that check nothing, dropped. */
const DROPPED = new Set(['description', 'title', 'example', 'examples', 'default', 'discriminator', 'format', 'deprecated', '$recursiveAnchor', 'nullable']);

const COMPONENT_REF = '#/components/schemas/';

/** The names of the component schemas `name` refers to, directly. */
function refsOf(schema) {
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)) found.push(decodeURIComponent(value.slice(COMPONENT_REF.length)));
      else walk(value);
    }
  };
  walk(schema);
  return found;
}

/** Every component schema reachable from the roots, in name order. */
function reachable(components) {
  const seen = new Set();
  const stack = [...ROOTS];
  while (stack.length > 0) {
    const name = stack.pop();
    if (seen.has(name)) continue;
    if (!(name in components)) throw new Error(`the description has no component schema '${name}'`);
    seen.add(name);
    stack.push(...refsOf(components[name]));
  }
  return [...seen].sort();
}

/**
 * The definitions a checker asks for by name (the roots, and each Responses stream event): they go
 * under `$defs`, which scripts/compile-validators.mjs compiles one export each; what they refer to
 * goes under `definitions`, compiled only as far as they reach it. That keeps the build's validators
 * for this document to about a third.
 */
function entryNames(components) {
  const events = components.ResponseStreamEvent.anyOf.map((member) => decodeURIComponent(member.$ref.slice(COMPONENT_REF.length)));
  return new Set([...ROOTS, ...events]);
}

/** A schema with its `nullable`, its recursive refs and its annotations converted (see the top). */
function convert(schema, defName, entries) {
  if (Array.isArray(schema)) return schema.map((item) => convert(item, defName, entries));
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)) out.$ref = pointerTo(decodeURIComponent(value.slice(COMPONENT_REF.length)), entries);
    else if (key === '$recursiveRef') out.$ref = pointerTo(defName, entries);
    else if (key === 'enum' || key === 'const') out[key] = value;
    else if (SCHEMA_MAPS.has(key)) out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convert(sub, defName, entries)]));
    else out[key] = convert(value, defName, entries);
  }
  // Strict ajv wants `type` beside `properties`/`required`; the description leaves it out of a few
  // objects (Model), which are objects all the same.
  if (out.type === undefined && (out.properties !== undefined || out.required !== undefined) && !COMBINATORS.some((k) => k in out)) out.type = 'object';
  return schema.nullable === true ? nullable(out) : out;
}

const COMBINATORS = ['anyOf', 'oneOf', 'allOf', '$ref'];

function pointerTo(name, entries) {
  return `#/${entries.has(name) ? '$defs' : 'definitions'}/${encodeURIComponent(name)}`;
}

/** `schema` or null: a type list gains "null" (and an enum null); any other schema is one branch of an anyOf. */
function nullable(schema) {
  if (typeof schema.type === 'string' || Array.isArray(schema.type)) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const out = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** Lets `property` of a converted schema (or of one of its allOf members) be null too. */
function allowNull(schema, property, name) {
  for (const part of [schema, ...(schema.allOf ?? [])]) {
    if (part.properties?.[property] === undefined) continue;
    part.properties[property] = nullable(part.properties[property]);
    return;
  }
  throw new Error(`${name} has no property '${property}' to allow null in`);
}

/** The derived document's text, from the description's text; throws when the input is not the pinned file. */
export function deriveOpenAiSchema(specText) {
  const sha256 = createHash('sha256').update(specText).digest('hex');
  if (sha256 !== OPENAI_SPEC_SHA256) throw new Error(`the OpenAI description's sha256 is ${sha256}, not the pinned ${OPENAI_SPEC_SHA256}: update the pin (and schemas/README.md) deliberately`);
  const spec = JSON.parse(specText);
  const components = spec.components.schemas;
  const entries = entryNames(components);
  const names = reachable(components);
  const converted = Object.fromEntries(names.map((name) => [name, convert(components[name], name, entries)]));
  for (const [name, property] of NULL_TOO) allowNull(converted[name], property, name);
  const section = (inside) => Object.fromEntries(names.filter((name) => entries.has(name) === inside).map((name) => [name, converted[name]]));
  const doc = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    $comment: `Derived by scripts/derive-openai-schemas.mjs from openai/openai-openapi openapi.json (info.version ${spec.info.version}, sha256 ${sha256}), MIT License, Copyright (c) OpenAI. Do not edit.`,
    $defs: section(true),
    definitions: section(false),
  };
  return JSON.stringify(doc) + '\n';
}

function main(args) {
  const check = args.includes('--check');
  const specPath = args.find((a) => !a.startsWith('--')) ?? DEFAULT_SPEC;
  const derived = deriveOpenAiSchema(readFileSync(specPath));
  if (!check) {
    writeFileSync(OUTPUT, derived);
    return 0;
  }
  if (readFileSync(OUTPUT, 'utf8') === derived) return 0;
  process.stderr.write(`${OUTPUT} is not what scripts/derive-openai-schemas.mjs derives from ${specPath}: run the script again\n`);
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
