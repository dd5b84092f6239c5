// Compiles the validators of the shipped schemas (schemas/ and the ACP schema of
// @agentclientprotocol/sdk) to code, the last step of `npm run build`, so that a command loads
// compiled functions instead of compiling the schemas on every start. The output, under
// dist/schema/compiled/, is a build artifact: one CommonJS module per document and per error mode,
// the names each ref is exported under (`doc<n>.exports.json`, read on first use), the document's own
// bytes (`doc<n>.source.json`) and manifest.json. A registry uses a compiled validator only when the documents it was compiled
// from are loaded unchanged (same sha256); anything else is compiled at run time as before.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ajvModule from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
// The catalog declares the protocols' schemas, which the registry loads.
import '../dist/protocols/catalog.js';
import { SchemaRegistry, ajvSchemasOf } from '../dist/schema/schema-registry.js';
import { createAjv } from '../dist/schema/ajv-setup.js';
import { RefGraph } from '../dist/schema/ref-graph.js';
import { COMPILED_FORMAT, COMPILED_MANIFEST, COMPILED_VALIDATORS_DIR } from '../dist/schema/compiled-validators.js';
import { piecesFile } from '../dist/schema/compiled-pieces.js';
import { declaredProtocolSchemas, declaredSchemaFile, declaredSchemaKey } from '../dist/schema/schema-sources.js';

const { _ } = ajvModule;
const standaloneCode = standaloneModule.default ?? standaloneModule;

// Only what ships: no AGENT_PROXY_SCHEMAS, no extra directories.
const registry = SchemaRegistry.load({ useEnv: false, compiledValidators: false });
const documents = registry.documents;
const graph = new RefGraph(documents.values());
const schemas = ajvSchemasOf(documents, graph);
// Each document's declared file by its path, so that a registry knows which `$id` a file held before reading it.
const declaredKeys = new Map();
for (const spec of declaredProtocolSchemas()) {
  const file = declaredSchemaFile(spec);
  if (file !== undefined) declaredKeys.set(file, declaredSchemaKey(spec));
}

/**
 * What the output is made from: the documents (by sha256), this script, the built schema modules
 * that set ajv up and walk the refs, and ajv's version. When a previous build's output was made
 * from the same, it is kept: compiling takes most of a build's time (~18 s of CPU), and `npm ci`
 * followed by `npm test` builds twice.
 */
function inputsDigest() {
  const hash = createHash('sha256');
  const add = (name, text) => hash.update(`${name}\0${text}\0`);
  add('script', readFileSync(fileURLToPath(import.meta.url)));
  const schemaModules = fileURLToPath(new URL('../dist/schema/', import.meta.url));
  for (const name of readdirSync(schemaModules).filter((file) => file.endsWith('.js')).sort()) add(name, readFileSync(join(schemaModules, name)));
  add('ajv', createRequire(import.meta.url)('ajv/package.json').version);
  for (const doc of documents.values()) add(doc.id, doc.sha256);
  return hash.digest('hex');
}

const INPUTS_FILE = join(COMPILED_VALIDATORS_DIR, 'inputs.sha256');
const digest = inputsDigest();

/** The previous output, whole (its manifest and every module it names), made from these inputs. */
function upToDate() {
  try {
    if (readFileSync(INPUTS_FILE, 'utf8') !== digest) return false;
    const manifest = JSON.parse(readFileSync(join(COMPILED_VALIDATORS_DIR, COMPILED_MANIFEST), 'utf8'));
    return manifest.format === COMPILED_FORMAT && Object.values(manifest.documents).every((entry) => [entry.allErrors, entry.firstError, entry.exports, entry.source, piecesFile(entry.allErrors), piecesFile(entry.firstError)].every((file) => existsSync(join(COMPILED_VALIDATORS_DIR, file))));
  } catch {
    return false;
  }
}
if (upToDate()) process.exit(0);

/**
 * Every ref a protocol may ask for by name: the document, each $def by pointer (`definitions` in a
 * draft-07 document), and each $def's $anchor.
 */
function refsOf(doc) {
  const refs = [doc.id];
  for (const key of ['$defs', 'definitions']) {
    for (const [name, def] of Object.entries(doc.json[key] ?? {})) {
      refs.push(`${doc.id}#/${key}/${name}`);
      if (def && typeof def.$anchor === 'string') refs.push(`${doc.id}#${def.$anchor}`);
    }
  }
  return refs;
}

/** An ajv that keeps its generated code; the format checks are linked in when the module loads. */
function codeAjv(allErrors) {
  const ajv = createAjv(allErrors, { source: true, formats: _`schemaFormats` });
  for (const { json, id } of schemas) ajv.addSchema(json, id);
  return ajv;
}

/**
 * The refs of `doc` that compile, each with its validator: those reaching an unloaded document stay
 * unchecked, and are left to run time.
 */
function compilableRefs(doc, ajv) {
  const compiled = [];
  for (const ref of refsOf(doc)) {
    if (graph.missingFor(ref).length > 0) continue;
    try {
      const validate = ajv.getSchema(ref);
      if (validate) compiled.push([ref, validate]);
    } catch {
      // Left to run time, which reports it as it always has.
    }
  }
  return compiled;
}

/**
 * The code without the schema objects it declares and never reads: ajv's standalone code declares
 * one (`const schema12 = {...};`, the whole $def as JSON) for every schema it compiles, read only
 * by the validators that report a value of it (an enum's allowed values). Those nothing names were
 * ~100 KB of the AG-UI module, built on every load. A name met anywhere else in the code (even in
 * a string) keeps its declaration.
 */
function withoutUnreadSchemas(code) {
  const mentions = new Map();
  for (const [name] of code.matchAll(/\bschema\d+\b/g)) mentions.set(name, (mentions.get(name) ?? 0) + 1);
  const declaration = /const (schema\d+) = /g;
  let kept = '';
  let from = 0;
  for (let found = declaration.exec(code); found !== null; found = declaration.exec(code)) {
    if (mentions.get(found[1]) > 1) continue;
    const end = jsonLiteralEnd(code, found.index + found[0].length);
    if (code[end] !== ';') throw new Error(`compile-validators: ${found[1]} is not declared as a JSON literal`);
    kept += code.slice(from, found.index);
    from = end + 1;
    declaration.lastIndex = from;
  }
  return kept + code.slice(from);
}

/** Where the JSON object or array that starts at `start` ends (the index after its last bracket). */
function jsonLiteralEnd(code, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  throw new Error('compile-validators: a schema literal does not end');
}

/**
 * A module that, given the format checks, returns its validators by export name. The function that
 * links them is parenthesised: V8 then compiles it when the module loads instead of pre-parsing its
 * ~0.5–2 MB at load and parsing it all again when it is called (the AG-UI module: ~35 → ~15 ms of
 * CPU to load on Node 20, with withoutUnreadSchemas).
 */
function moduleText(doc, code) {
  return [
    '"use strict";',
    `// Generated by scripts/compile-validators.mjs from ${doc.id} (sha256 ${doc.sha256}); do not edit.`,
    'module.exports = (function link(schemaFormats) {',
    'const exports = {};',
    withoutUnreadSchemas(code),
    'return exports;',
    '});',
    '',
  ].join('\n');
}
const LINK_OPEN = 'module.exports = (function link(schemaFormats) {\nconst exports = {};\n';
const LINK_CLOSE = '\nreturn exports;\n});';

/**
 * The statements of a module's linking function (moduleText), so that a validator can be linked from
 * its own code alone (src/schema/compiled-validators.ts): a root of a large document reaches a small
 * part of it (OpenAI's chat completion chunk: 75 KB of its 3.2 MB). Each statement is a declaration
 * (`const schema1 = …`, `function validate1(…) {…}`) or sets a member of one (`validate1.evaluated = …`);
 * it depends on every statement that declares a name it mentions (anywhere, a string too: at worst
 * it takes more than it needs). `exports.vN = validateM;` statements name the roots. Offsets are in
 * bytes of the module's UTF-8, so that run time decodes only the statements it takes (decoding a
 * 3 MB module costs ~35 ms; a byte of a character that is not ASCII is never one of JavaScript's syntax).
 */
function piecesOf(moduleText) {
  const text = Buffer.from(moduleText, 'utf8').toString('latin1');
  const start = text.indexOf(LINK_OPEN) + LINK_OPEN.length;
  const end = text.lastIndexOf(LINK_CLOSE);
  if (start < LINK_OPEN.length || end < start) throw new Error('compile-validators: not a linking module');
  const statements = [];
  const owners = new Map();
  const roots = {};
  for (const [from, to] of statementRanges(text, start, end)) {
    const code = text.slice(from, to);
    const declared = /^(?:const|let|var) ([A-Za-z_$][\w$]*) = |^function ([A-Za-z_$][\w$]*)\(|^([A-Za-z_$][\w$]*)\.[A-Za-z_$][\w$]* = /.exec(code);
    const exported = /^exports\.([A-Za-z_$][\w$]*) = ([A-Za-z_$][\w$]*);$/.exec(code);
    if (exported) {
      roots[exported[1]] = exported[2];
    } else if (declared && declared[3] !== 'exports') {
      const name = declared[1] ?? declared[2] ?? declared[3];
      if (!owners.has(name)) owners.set(name, []);
      owners.get(name).push(statements.length);
      statements.push([from, to, code]);
    } else if (code !== '"use strict";') {
      throw new Error(`compile-validators: a statement of a kind not split: ${code.slice(0, 80)}`);
    }
  }
  const deps = statements.map(([, , code]) => {
    const of = new Set();
    for (const [name] of code.matchAll(/[A-Za-z_$][\w$]*/g)) for (const i of owners.get(name) ?? []) of.add(i);
    return [...of].sort((a, b) => a - b);
  });
  const exports = {};
  for (const [name, fn] of Object.entries(roots)) {
    if (!owners.has(fn)) throw new Error(`compile-validators: ${name} names ${fn}, which no statement declares`);
    exports[name] = { fn, statements: owners.get(fn) };
  }
  return { size: end - start, statements: statements.map(([from, to], i) => [from, to, ...deps[i]]), exports };
}

/**
 * The ranges of the top-level statements of `text` from `start` to `end`: each ends at a `;` outside
 * brackets, or at the `}` that closes a function declaration. Strings, comments and regular
 * expressions (ajv writes `/~/g` to escape a JSON pointer) are skipped.
 */
function* statementRanges(text, start, end) {
  let from = start;
  let depth = 0;
  let previous = '';
  const skipWhite = () => {
    while (from < end && /\s/.test(text[from])) from++;
  };
  skipWhite();
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2) + 1;
      continue;
    } else if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      continue;
    } else if (c === '/' && /[(,=:[!&|?{};]/.test(previous)) {
      for (let inClass = false, j = i + 1; ; j++) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        else if (text[j] === '/' && !inClass) {
          i = j;
          break;
        }
      }
    } else if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
    if (depth === 0 && (c === ';' || (c === '}' && text.startsWith('function ', from)))) {
      yield [from, i + 1];
      from = i + 1;
      skipWhite();
      i = from - 1;
      previous = ';';
      continue;
    }
    if (!/\s/.test(c)) previous = c;
  }
  if (depth !== 0 || text.slice(from, end).trim() !== '') throw new Error('compile-validators: the linking function does not split into statements');
}

rmSync(COMPILED_VALIDATORS_DIR, { recursive: true, force: true });
mkdirSync(COMPILED_VALIDATORS_DIR, { recursive: true });
const manifest = { format: COMPILED_FORMAT, documents: {} };
for (const [index, doc] of [...documents.values()].entries()) {
  const ajv = codeAjv(true);
  const refs = compilableRefs(doc, ajv);
  if (refs.length === 0) continue;
  // A $def's pointer and its $anchor reach the same validator: one export serves both.
  const names = new Map();
  const exports = {};
  for (const [ref, validate] of refs) {
    if (!names.has(validate)) names.set(validate, `v${names.size}`);
    exports[ref] = names.get(validate);
  }
  const byName = Object.fromEntries(refs.map(([ref]) => [exports[ref], ref]));
  const declared = declaredKeys.get(doc.file);
  if (declared === undefined) throw new Error(`compile-validators: ${doc.file} is not a declared schema file`);
  const entry = { allErrors: `doc${index}.all-errors.cjs`, firstError: `doc${index}.first-error.cjs`, needs: {}, exports: `doc${index}.exports.json`, source: `doc${index}.source.json`, size: 0, declared };
  for (const id of graph.documentsReachedFrom(doc.id)) entry.needs[id] = documents.get(id).sha256;
  writeFileSync(join(COMPILED_VALIDATORS_DIR, entry.exports), JSON.stringify(exports) + '\n');
  // The document's bytes as the build hashed them: a registry that reads the same bytes takes their
  // $id and sha256 from here instead of hashing them (CompiledValidators.documentOfBytes).
  const bytes = readFileSync(doc.file);
  if (createHash('sha256').update(bytes).digest('hex') !== doc.sha256) throw new Error(`compile-validators: ${doc.file} changed while the validators were compiled; build again`);
  writeFileSync(join(COMPILED_VALIDATORS_DIR, entry.source), bytes);
  entry.size = bytes.length;
  for (const [file, code] of [[entry.allErrors, standaloneCode(ajv, byName)], [entry.firstError, standaloneCode(codeAjv(false), byName)]]) {
    const text = moduleText(doc, code);
    writeFileSync(join(COMPILED_VALIDATORS_DIR, file), text);
    writeFileSync(join(COMPILED_VALIDATORS_DIR, piecesFile(file)), JSON.stringify(piecesOf(text)));
  }
  manifest.documents[doc.id] = entry;
}
// Silent on success, as tsc is: `npm pack --json` runs the build through prepare and reads its stdout.
writeFileSync(join(COMPILED_VALIDATORS_DIR, COMPILED_MANIFEST), JSON.stringify(manifest, null, 1) + '\n');
// Last, so that an interrupted compile is never taken as up to date.
writeFileSync(INPUTS_FILE, digest);
