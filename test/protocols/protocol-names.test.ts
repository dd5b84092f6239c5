/**
 * The rule that keeps a protocol one folder (issue 29, point 2): no file under src/ outside
 * `src/protocols/<id>/` names a protocol or imports from a protocol folder, apart from the catalog
 * (src/protocols/catalog.ts and module-by-id.ts: one line per protocol) and the public API's re-exports
 * (src/index.ts). The names are the catalog's (PROTOCOL_IDS, PROTOCOL_FAMILIES), never a hand list;
 * the protocol folders are the folders under src/protocols/.
 *
 * What counts is code: a string literal (template pieces too) with a protocol id among its words,
 * an identifier that is one (`{ acp: true }`), an import that resolves into a protocol folder.
 * Comments do not count: prose about "AG-UI's run" documents; a literal `'agui'` decides by the
 * protocol, which only its module should. (A name spelt with escapes, `'ac\u0070'`, is not looked for.)
 *
 * The inspector page (src/ui/web) is under src/ and held to the rule like the rest: it renders the
 * views the server says an exchange has (`run`, `session`: ProtocolModule.views), named by renderer,
 * not by protocol.
 *
 * dependency-cruiser (`npm run lint:deps`) enforces the import half as the build's layering rule,
 * and says which protocol folders may import which (ProtocolFacts.buildsOn).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_FAMILIES, PROTOCOL_IDS, REPLAY_FACTS } from '../../src/protocols/catalog.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PROTOCOLS_DIR = 'src/protocols';

/** The protocol folders: every folder under src/protocols/. */
const PROTOCOL_FOLDERS: readonly string[] = readdirSync(join(REPO, PROTOCOLS_DIR), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** What names a protocol: its id (which is its folder's name) or its family. */
const PROTOCOL_NAMES: ReadonlySet<string> = new Set([...PROTOCOL_IDS, ...PROTOCOL_FAMILIES]);

/** The catalog: one line per protocol. */
// semantic-folds.ts is the catalog's table of the folds alone, for diff's side scanner (module-by-id.ts's twin).
const CATALOG_FILES: ReadonlySet<string> = new Set([`${PROTOCOLS_DIR}/catalog.ts`, `${PROTOCOLS_DIR}/module-by-id.ts`, `${PROTOCOLS_DIR}/semantic-folds.ts`]);
const PUBLIC_API = 'src/index.ts';

interface Offence {
  file: string;
  line: number;
  /** `name`: a literal or identifier naming a protocol; `import`: an import from a protocol folder. */
  kind: 'name' | 'import';
  /** The literal's text, the identifier, or the import's specifier. */
  text: string;
}

/**
 * The offences the rule admits, each with why; an entry that no longer matches anything fails the
 * test, so the list only shrinks.
 */
const ADMITTED: ReadonlyArray<{ file: string; kind: Offence['kind']; text: string; why: string }> = [
  {
    file: 'src/core/message-label.ts',
    kind: 'name',
    text: 'json-rpc',
    why: "LABEL_FIELDS.envelopeLabel: the display label of a JSON-RPC message with neither method nor id, in any protocol's stream; spelt as the protocol's id, but no module is looked up by it, and diffs store it",
  },
  // derivedSchemaRef: the refs an NDJSON version 3 line leaves out, a table frozen as part of the file format (what a
  // version 3 file means must not change when a checker does, so the protocol modules cannot be asked);
  // test/store/ndjson-derived-ref.test.ts checks it against the checkers.
  ...['agui', 'pi-daemon-rpc', 'openai', 'anthropic', 'https://a.skh.am/pi-daemon/session-api.schema.json'].map((text) => ({
    file: 'src/store/ndjson-derived-ref.ts',
    kind: 'name' as const,
    text,
    why: 'the NDJSON version 3 format: the schema refs a line leaves out, by protocol',
  })),
];

/** The folder under src/protocols/ that a specifier imported by `file` resolves into, if any. */
function protocolFolderOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  const match = /^src\/protocols\/([^/]+)\//.exec(target);
  return match !== null && PROTOCOL_FOLDERS.includes(match[1]) ? match[1] : undefined;
}

/** The module specifier a node imports or re-exports, if it is one. */
function importedSpecifier(node: ts.Node): { specifier: string; reExport: boolean } | undefined {
  const literal = (expression: ts.Node | undefined) => (expression !== undefined && ts.isStringLiteralLike(expression) ? expression.text : undefined);
  let specifier: string | undefined;
  if (ts.isImportDeclaration(node)) specifier = literal(node.moduleSpecifier);
  else if (ts.isExportDeclaration(node)) return node.moduleSpecifier === undefined ? undefined : { specifier: literal(node.moduleSpecifier) ?? '', reExport: true };
  else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) specifier = literal(node.moduleReference.expression);
  else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) specifier = literal(node.arguments[0]);
  else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) specifier = literal(node.argument.literal);
  return specifier === undefined ? undefined : { specifier, reExport: false };
}

/** Does a literal's text name a protocol: is one of its words (split at anything but letters, digits and `-`) one? */
function namesProtocol(text: string): boolean {
  return text.split(/[^A-Za-z0-9-]+/).some((word) => PROTOCOL_NAMES.has(word));
}

/** The offences in one source file (`file` relative to the repository, with `/`). */
function offencesIn(file: string, text: string): Offence[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Offence[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const specifiers = new Set<ts.Node>();
  const visit = (node: ts.Node): void => {
    const imported = importedSpecifier(node);
    if (imported !== undefined) {
      const moduleNode = ts.isImportDeclaration(node) || ts.isExportDeclaration(node) ? node.moduleSpecifier : ts.isCallExpression(node) ? node.arguments[0] : undefined;
      if (moduleNode !== undefined) specifiers.add(moduleNode);
      const reExportedByApi = imported.reExport && file === PUBLIC_API;
      if (protocolFolderOf(file, imported.specifier) !== undefined && !reExportedByApi) found.push({ file, line: at(node), kind: 'import', text: imported.specifier });
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) specifiers.add(node.argument.literal);
    if (ts.isExternalModuleReference(node)) specifiers.add(node.expression);
    if (!specifiers.has(node)) {
      if ((ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) && namesProtocol(node.text)) {
        found.push({ file, line: at(node), kind: 'name', text: node.text });
      } else if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && PROTOCOL_NAMES.has(node.text)) {
        found.push({ file, line: at(node), kind: 'name', text: node.text });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every TypeScript file under src/ outside the protocol folders and the catalog. */
function filesHeldToTheRule(): string[] {
  return readdirSync(join(REPO, 'src'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?tsx?$/.test(entry.name))
    .map((entry) => relative(REPO, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .filter((file) => !/^src\/protocols\/[^/]+\//.test(file) && !CATALOG_FILES.has(file))
    .sort();
}

const isAdmitted = (offence: Offence) => ADMITTED.some((a) => a.file === offence.file && a.kind === offence.kind && a.text === offence.text);

describe('a protocol is named only in its folder and the catalog', () => {
  it('no file outside src/protocols/<id>/ and the catalog names a protocol or imports from its folder', () => {
    const files = filesHeldToTheRule();
    expect(files).toContain('src/ui/web/app.ts');
    // Only a file whose text holds a name somewhere (maybe in a comment) can offend: the others are not parsed.
    const mayOffend = (text: string) => [...PROTOCOL_NAMES].some((name) => text.includes(name));
    const offences = files.flatMap((file) => {
      const text = readFileSync(join(REPO, file), 'utf8');
      return mayOffend(text) ? offencesIn(file, text) : [];
    });
    const report = (list: Offence[]) => list.map((o) => `${o.file}:${o.line} ${o.kind} ${JSON.stringify(o.text)}`);
    expect(report(offences.filter((o) => !isAdmitted(o))), 'move the knowledge into the protocol module').toEqual([]);
    const stale = ADMITTED.filter((a) => !offences.some((o) => o.file === a.file && o.kind === a.kind && o.text === a.text));
    expect(stale.map((a) => `${a.file} ${a.kind} ${a.text}`), 'admitted offences that are gone: drop them from ADMITTED').toEqual([]);
  });

  it('a protocol builds only on protocols of the catalog, each in its own folder', () => {
    // lint:deps reads buildsOn to say which protocol folders a folder may import from (rules protocol-builds-on:<id>).
    for (const facts of REPLAY_FACTS) {
      expect(PROTOCOL_FOLDERS, `the folder of ${facts.id}`).toContain(facts.id);
      for (const base of facts.buildsOn ?? []) expect(PROTOCOL_IDS, `${facts.id} builds on ${base}`).toContain(base);
    }
  });

  it('lint:deps reads what each protocol builds on from its facts', () => {
    interface Rule {
      name: string;
      to: { pathNot?: string[] };
    }
    const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as { forbidden: Rule[] };
    for (const facts of REPLAY_FACTS) {
      const rule = config.forbidden.find((r) => r.name === `protocol-builds-on:${facts.id}`);
      expect(rule?.to.pathNot, `rule protocol-builds-on:${facts.id}`).toEqual([facts.id, ...(facts.buildsOn ?? [])].map((id) => `^src/protocols/${id.replace(/\./g, '\\.')}/`));
    }
  });

  it('takes the names from the catalog', () => {
    for (const id of PROTOCOL_IDS) expect(PROTOCOL_NAMES.has(id)).toBe(true);
    expect(PROTOCOL_NAMES.has('pi-daemon')).toBe(true);
    expect(PROTOCOL_IDS.length).toBeGreaterThan(5);
  });

  describe('what counts', () => {
    const names = (text: string, file = 'src/cli/x.ts') => offencesIn(file, text).map((o) => `${o.kind} ${o.text}`);

    it('a string literal, a template, an identifier naming a protocol', () => {
      expect(names("const a = 'acp';")).toEqual(['name acp']);
      expect(names('const a = `over ${b} pi-rpc.v1`;')).toEqual(['name  pi-rpc.v1']);
      expect(names("const a = { agui: true, 'pi-rest': 1 };")).toEqual(['name agui', 'name pi-rest']);
      expect(names("if (family === 'pi-daemon') f();")).toEqual(['name pi-daemon']);
    });

    it('an import from a protocol folder, however written', () => {
      expect(names("import { x } from '../protocols/agui/materialize.js';")).toEqual(['import ../protocols/agui/materialize.js']);
      expect(names("import type { X } from '../protocols/pi-rpc/event-types.js';")).toEqual(['import ../protocols/pi-rpc/event-types.js']);
      expect(names("export { x } from '../protocols/acp/index.js';")).toEqual(['import ../protocols/acp/index.js']);
      expect(names("const m = await import('../../protocols/json-rpc/index.js');", 'src/ui/server/x.ts')).toEqual(['import ../../protocols/json-rpc/index.js']);
      expect(names("type T = import('../protocols/unix-ndjson/index.js').X;")).toEqual(['import ../protocols/unix-ndjson/index.js']);
    });

    it('not comments, prose, other words, the catalog\'s shared files, or the public API\'s re-exports', () => {
      expect(names("// 'acp' and agui in a comment\n/* pi-rpc */ const a = 1; /** json-rpc */ const b = 2;")).toEqual([]);
      expect(names("const a = 'AG-UI runs get a RUN_ERROR'; const b = 'agui-run'; const c = 'jsonrpc';")).toEqual([]);
      expect(names("import { CATALOG } from '../protocols/catalog.js'; import type { ProtocolModule } from '../protocols/protocol.js';")).toEqual([]);
      expect(names("export { x } from './protocols/acp/index.js';", PUBLIC_API)).toEqual([]);
      expect(names("import { x } from './protocols/acp/index.js';", PUBLIC_API)).toEqual(['import ./protocols/acp/index.js']);
    });
  });
});
