#!/usr/bin/env node
// The CLI runs from its bundle (scripts/bundle-cli.mjs): one module to load instead of ~200.
import { main } from '../dist/bundle/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
