#!/usr/bin/env node
// The command's former name, kept so `node bin/proxy.js …` in a clone and in older scripts still
// works. It is not installed as a bin: `proxy` is another npm package's command.
require('./agent-proxy.js');
