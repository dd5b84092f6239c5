// The least program that does what `validate` of a small AG-UI event stream must do (bench/startup-floor.js times it
// beside the CLI): the file read and split into its events, each event's data JSON.parse'd and checked with the
// build's compiled AG-UI validators (the module `npm run build` compiles from the shipped schema: loading it is part
// of any validate that judges by schema), one line printed per event. Hand-written, no project module besides the
// compiled validators, no option parser, no protocol sniffing, no rules beyond the schema, no schema hashes.
// Usage: node bench/lib/floor-validate.cjs <the build's dist/schema/compiled> <file.sse> [--json-only]
//   --json-only: the events parsed, not checked (the validators not loaded).
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const [compiledDir, file, jsonOnly] = process.argv.slice(2);
const AGUI = 'https://ag-ui.com/spec/draft/schema.json';

/** The compiled validator of AG-UI's event union, found through the build's manifest and the document's export names. */
function eventValidator() {
  const documentFiles = JSON.parse(readFileSync(join(compiledDir, 'manifest.json'), 'utf8')).documents[AGUI];
  const exportName = JSON.parse(readFileSync(join(compiledDir, documentFiles.exports), 'utf8'))[`${AGUI}#/$defs/Event`];
  // The module exports its linking function, which takes the format checks (AG-UI's schema uses none).
  return require(join(compiledDir, documentFiles.allErrors))({})[exportName];
}

const validate = jsonOnly === '--json-only' ? undefined : eventValidator();
const lines = [];
let index = 0;
for (const block of readFileSync(file, 'utf8').split(/\r?\n\r?\n/)) {
  const data = block
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line[5] === ' ' ? 6 : 5));
  if (data.length === 0) continue;
  const event = JSON.parse(data.join('\n'));
  const verdict = validate === undefined ? 'parsed' : validate(event) ? 'valid' : 'invalid';
  lines.push(`${index++} ${event.type} ${verdict}\n`);
}
process.stdout.write(lines.join(''));
