// What the forward proxy's certificates cost: minting a leaf for a host seen for the first time
// against serving a cached one, each as a ratio to one TLS handshake with a fixed certificate in
// the same run. Handshakes are sequential on new connections (no session resumption), ECDSA P-256
// everywhere, the client trusting only the local CA, as an intercepted client does.
// Run (after a build):  node bench/forward-certs.js [--quick | --smoke] [--dist PATH]
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, createSecureContext, createServer } from 'node:tls';
import { webcrypto } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const smoke = process.argv.includes('--smoke');
const quick = smoke || process.argv.includes('--quick');
const DIST = resolve(argValue('--dist') ?? new URL('../dist', import.meta.url).pathname);
const HANDSHAKES = smoke ? 5 : quick ? 60 : 300;
const ROUNDS = smoke ? 1 : quick ? 3 : 5;
const load = (path) => import(pathToFileURL(join(DIST, path)).href);
const { openLocalCa } = await load('net/ca/local-ca.js');
const { LeafIssuer } = await load('net/ca/leaf-issuer.js');
const { EC_KEY_ALGORITHM } = await load('net/ca/x509.js');

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-ca-'));
const ca = await openLocalCa({ dir });
const issuer = new LeafIssuer(ca);
const fixed = await issuer.leafFor('fixed.test');

// One server, two ways to pick a certificate: the fixed one for the server name `fixed.test`, else
// the issuer's leaf for whatever name the client sent (minted or cached).
const server = createServer({ cert: fixed.certPem, key: fixed.keyPem, SNICallback: (name, done) => (name === 'fixed.test' ? done(null, fixed.secureContext) : issuer.sniCallback()(name, done)) }, (socket) => socket.end());
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const port = server.address().port;

// The client's trust store is built once (as an agent's is), not per connection.
const trustingTheCa = createSecureContext({ ca: ca.certPem });

/** One full handshake on a new connection for `servername`, checked against the CA; resolves when verified. */
function handshake(servername) {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port, servername, secureContext: trustingTheCa }, () => {
      socket.destroy();
      done();
    });
    socket.on('error', fail);
  });
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
let hostCounter = 0;
const newHost = () => `host-${++hostCounter}.bench.test`;

/** Mean ms per call of `step` over HANDSHAKES sequential calls. */
async function perCall(step) {
  const started = now();
  for (let i = 0; i < HANDSHAKES; i++) await step(i);
  return (now() - started) / HANDSHAKES;
}

const cachedHost = 'cached.test';
await issuer.leafFor(cachedHost);
// Warm-up: node:tls, the library, the first signatures.
await perCall(() => handshake('fixed.test'));
await perCall(() => handshake(newHost()));

const results = { fixedHandshake: [], newHostHandshake: [], cachedHostHandshake: [], mint: [], cachedLookup: [], keyGeneration: [] };
for (let round = 0; round < ROUNDS; round++) {
  results.fixedHandshake.push(await perCall(() => handshake('fixed.test')));
  results.newHostHandshake.push(await perCall(() => handshake(newHost())));
  results.cachedHostHandshake.push(await perCall(() => handshake(cachedHost)));
  results.mint.push(await perCall(() => issuer.leafFor(newHost())));
  results.cachedLookup.push(await perCall(() => issuer.leafFor(cachedHost)));
  // What a key of its own per leaf would add to each mint (the process shares one instead).
  results.keyGeneration.push(await perCall(() => webcrypto.subtle.generateKey(EC_KEY_ALGORITHM, true, ['sign', 'verify'])));
}
const m = Object.fromEntries(Object.entries(results).map(([name, values]) => [name, median(values)]));
const ratio = (ms) => `${(ms / m.fixedHandshake).toFixed(2)}×`;
console.log(`forward-proxy certificates, ${HANDSHAKES} sequential calls per measure, medians of ${ROUNDS} rounds (ECDSA P-256):`);
console.log(`  one TLS handshake, fixed certificate        ${m.fixedHandshake.toFixed(3)} ms   (1×)`);
console.log(`  handshake for a new host (mint + handshake) ${m.newHostHandshake.toFixed(3)} ms   ${ratio(m.newHostHandshake)}`);
console.log(`  handshake for a cached host                 ${m.cachedHostHandshake.toFixed(3)} ms   ${ratio(m.cachedHostHandshake)}`);
console.log(`  minting a leaf alone (leafFor, new host)    ${m.mint.toFixed(3)} ms   ${ratio(m.mint)}`);
console.log(`  serving a cached leaf (leafFor, same host)  ${(m.cachedLookup * 1000).toFixed(2)} µs   ${ratio(m.cachedLookup)}`);
console.log(`  a P-256 key per leaf would add              ${m.keyGeneration.toFixed(3)} ms   ${ratio(m.keyGeneration)}`);
console.log(`  hosts minted: ${issuer.size}`);
server.close();
rmSync(dir, { recursive: true, force: true });
