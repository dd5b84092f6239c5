// The layering of src/, checked by `npm test` (scripts: lint:deps). README.md, "Architecture", explains it.
//
// Each area may import from the areas listed for it and from itself, nothing else under src/: an
// import going up the layers, or sideways between two areas of one layer, is a violation. Type-only
// imports count too (tsPreCompilationDeps): a type that must come from above means the piece is in
// the wrong place. The fix is to move the shared piece down to where both can use it, not to widen
// a list here.

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const CORE = ['core'];
const BASE = [...CORE, 'framing', 'schema', 'net'];
const JUDGING = [...BASE, 'protocols', 'judge'];
const STORE = [...JUDGING, 'store'];
const TOOLS = ['record', 'replay', 'diff', 'export', 'validate'];

/** Area (a folder under src/, or one file) → the areas it may import from. Bottom to top. */
const LAYERS = {
  // 0: the shared kernel.
  core: [],
  // 1: wire formats, the JSON Schema registry, sockets and listeners; no protocol knowledge.
  framing: CORE,
  schema: CORE,
  net: CORE,
  // 2: what each protocol's messages mean.
  protocols: ['core', 'framing', 'schema'],
  // 3: parse → judge → redact.
  judge: ['core', 'framing', 'schema', 'net', 'protocols'],
  // 3: what matching a live request against a recorded one means (normalisation by the protocols'
  // volatile fields, correlation of echoed ids, redacted values, path similarity), which replay
  // matches by and diff compares by.
  match: ['core', 'framing', 'schema', 'protocols'],
  // 4: the recording on disk (SQLite and its NDJSON form). It stores what it is handed and knows no
  // protocol, rule or socket: the kernel is all it needs.
  store: CORE,
  // 5: the tools, side by side: none imports another. replay and diff share match/; replay passes
  // misses through a port of its own (replay/miss-passthrough.ts) that record implements by shape,
  // and what composes them (level 6 and up) hands record's implementation to replay.
  record: STORE,
  replay: [...STORE, 'match'],
  diff: [...STORE, 'match'],
  export: STORE,
  validate: STORE,
  // 6: what composes the tools: the inspector's server and the demo.
  'ui/api-types.ts': [...STORE, 'match', ...TOOLS],
  'ui/server': [...STORE, 'match', ...TOOLS, 'ui/api-types.ts'],
  demo: [...STORE, 'match', ...TOOLS],
  // A test suite's fixture server: replays, records or forwards, as its mode says.
  fixture: [...STORE, 'match', ...TOOLS],
  // The CI loop: a recording's client side sent to a live agent through the recorder, then diffed.
  redrive: [...STORE, 'match', ...TOOLS],
  // What CI reads: the one report of diff, findings and a strict replay, in CI's formats.
  report: [...STORE, 'match', ...TOOLS],
  // 7: the command line, then the package's entry point.
  cli: [...STORE, 'match', ...TOOLS, 'ui/api-types.ts', 'ui/server', 'demo', 'fixture', 'redrive', 'report'],
  'index.ts': [...STORE, 'match', ...TOOLS, 'ui/api-types.ts', 'ui/server', 'demo', 'fixture', 'redrive', 'report', 'cli'],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `net` matches src/net/…, `index.ts` matches src/index.ts only. */
const areaPattern = (area) => `^src/${escape(area)}${area.endsWith('.ts') ? '$' : '/'}`;

const layerRules = Object.entries(LAYERS).map(([area, allowed]) => ({
  name: `layer:${area}`,
  severity: 'error',
  comment:
    allowed.length > 0
      ? `src/${area} may import only from itself and ${allowed.join(', ')}: this import goes up the layers or sideways.`
      : `src/${area} is the bottom layer: it may import nothing else under src/.`,
  from: { path: areaPattern(area) },
  to: { path: '^src/', pathNot: [area, ...allowed].map(areaPattern) },
}));

/*
 * Protocol folders build on one another only as their facts say. A protocol folder may import from
 * another protocol folder only when its facts (ProtocolFacts.buildsOn, in its replay-facts.ts) list
 * that protocol: the one it is a dialect of (ACP, and MCP next, reuse JSON-RPC's envelope,
 * correlation and miss answer), the one whose messages it carries (the daemon's framed RPC carries
 * Pi RPC's commands), or the one holding a schema it is judged by too (pi-rest: the Pi daemon's
 * session API). The list is read here from the facts, so the declaration and the rule are one; the
 * protocols it forms must be a hierarchy (no two folders building on each other, directly or not).
 */
function declaredBases(file) {
  if (!fs.existsSync(file)) return [];
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const bases = [];
  const visit = (node) => {
    if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'buildsOn') {
      const items = ts.isArrayLiteralExpression(node.initializer) ? node.initializer.elements : [];
      if (items.length === 0 || !items.every(ts.isStringLiteral)) throw new Error(`${file}: buildsOn must be a list of protocol ids as string literals`);
      bases.push(...items.map((item) => item.text));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return bases;
}

const PROTOCOLS_DIR = path.join(__dirname, 'src/protocols');
/** Each protocol folder, and the folders it declares it builds on. */
const PROTOCOL_BASES = Object.fromEntries(
  fs
    .readdirSync(PROTOCOLS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => [entry.name, declaredBases(path.join(PROTOCOLS_DIR, entry.name, 'replay-facts.ts'))]),
);

/** Throws when protocols build on each other in a circle. */
function checkHierarchy(bases) {
  const done = new Set();
  const visit = (id, trail) => {
    if (trail.includes(id)) throw new Error(`protocols build on each other in a circle (ProtocolFacts.buildsOn): ${[...trail, id].join(' -> ')}`);
    if (done.has(id)) return;
    for (const base of bases[id] ?? []) visit(base, [...trail, id]);
    done.add(id);
  };
  for (const id of Object.keys(bases)) visit(id, []);
}
checkHierarchy(PROTOCOL_BASES);

const folderPattern = (folder) => `^src/protocols/${escape(folder)}/`;

const protocolBaseRules = Object.entries(PROTOCOL_BASES).map(([folder, bases]) => ({
  name: `protocol-builds-on:${folder}`,
  severity: 'error',
  comment: `src/protocols/${folder}/ may import from another protocol folder only one its facts say it builds on (ProtocolFacts.buildsOn: ${bases.length > 0 ? bases.join(', ') : 'none'}).`,
  from: { path: folderPattern(folder) },
  to: { path: '^src/protocols/[^/]+/', pathNot: [folder, ...bases].map(folderPattern) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'An import cycle in src/: two modules that need each other are one concept, or one of them holds a piece that belongs lower.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'protocol-folders-are-private',
      severity: 'error',
      comment:
        'A protocol is one folder (src/protocols/<id>/): the tools use it through its module (ProtocolModule, catalog.ts, modules.ts), never by importing its internals.',
      from: { path: '^src/', pathNot: '^src/protocols/' },
      to: { path: '^src/protocols/[^/]+/' },
    },
    ...protocolBaseRules,
    {
      name: 'only-the-catalog-lists-protocols',
      severity: 'error',
      comment:
        'Beside the protocol folders, only the catalog (catalog.ts, module-by-id.ts, and semantic-folds.ts for diff\'s side scanner) imports them: what src/protocols/ shares with every protocol reaches them through their facts and modules.',
      from: { path: '^src/protocols/[^/]+\\.ts$', pathNot: '^src/protocols/(catalog|module-by-id|semantic-folds)\\.ts$' },
      to: { path: '^src/protocols/[^/]+/' },
    },
    {
      name: 'the-folds-table-takes-folds',
      severity: 'error',
      comment: 'semantic-folds.ts lists each protocol\'s --semantic fold (<id>/semantic.ts), nothing else of its folder: it exists so that the folds load without the modules.',
      from: { path: '^src/protocols/semantic-folds\\.ts$' },
      to: { path: '^src/protocols/[^/]+/', pathNot: '^src/protocols/[^/]+/semantic\\.ts$' },
    },
    {
      name: 'the-catalog-takes-facts-and-modules',
      severity: 'error',
      comment: 'The catalog lists each protocol by its facts (<id>/replay-facts.ts) and its module (<id>/index.ts), nothing else of its folder.',
      from: { path: '^src/protocols/(catalog|modules)\\.ts$' },
      to: { path: '^src/protocols/[^/]+/', pathNot: '^src/protocols/[^/]+/(index|replay-facts)\\.ts$' },
    },
    {
      name: 'ui-web-no-node-builtins',
      severity: 'error',
      comment: 'src/ui/web runs in the browser: no Node built-ins.',
      from: { path: '^src/ui/web/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'ui-web-only-api-types',
      severity: 'error',
      comment: 'src/ui/web runs in the browser: outside its own folder it may only `import type` from src/ui/api-types.ts.',
      from: { path: '^src/ui/web/' },
      to: { pathNot: ['^src/ui/web/', '^src/ui/api-types\\.ts$'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'ui-web-api-types-as-types',
      severity: 'error',
      comment: 'src/ui/web may import src/ui/api-types.ts only with `import type`: no code crosses from the server to the page.',
      from: { path: '^src/ui/web/' },
      to: { path: '^src/ui/api-types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ui-api-types-only-types',
      severity: 'error',
      comment: 'src/ui/api-types.ts is shared with the browser page: it may only `import type`.',
      from: { path: '^src/ui/api-types\\.ts$' },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-test-from-src',
      severity: 'error',
      comment: 'src/ must not import test/: the package ships without it.',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve: the rules above cannot judge it.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', '^test/'] },
    // Type-only imports are dependencies too (see above).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // src/ imports './x.js' for './x.ts' (NodeNext).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types', 'typings'] },
  },
};
