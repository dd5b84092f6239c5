// What `--ca` costs per new upstream connection: N concurrent requests, each on a new connection,
// through a fresh recorder to an https:// upstream whose certificate is signed by a private CA,
// trusted once with `--ca` (upstreamTls.ca) and once with the check skipped (`--insecure`, which
// builds no trust store at all). The ratio is what trusting a private CA adds to opening connections.
// Needs openssl. Run (after a build):  node bench/tls-connect.js [--quick] [--dist PATH] [--connections N]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const argValue = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const quick = process.argv.includes('--quick');
const DIST = resolve(argValue('--dist') ?? new URL('../dist', import.meta.url).pathname);
const CONNECTIONS = Number(argValue('--connections') ?? 60);
const ROUNDS = quick ? 3 : 7;
const { startRecorder } = await import(pathToFileURL(join(DIST, 'index.js')).href);

const dir = mkdtempSync(join(tmpdir(), 'agent-proxy-bench-tls-'));
const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=bench CA');
openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');

const upstream = createServer({ cert: readFileSync(join(dir, 'server.pem')), key: readFileSync(join(dir, 'server.key')) }, (req, res) => {
  // Closing each connection makes every request of the next round open a new one upstream too.
  res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
  res.end('{"ok":true}');
});
await new Promise((done) => upstream.listen(0, '127.0.0.1', done));
const target = `https://127.0.0.1:${upstream.address().port}`;

/** Wall ms for CONNECTIONS concurrent requests through a fresh recorder with these TLS options. */
async function round(upstreamTls) {
  const recorder = await startRecorder({ target, listen: 0, out: join(dir, `run-${Math.random()}.db`), upstreamTls });
  const url = new URL(recorder.url);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, () =>
      new Promise((done, fail) => {
        const req = request({ host: url.hostname, port: url.port, path: '/ping', agent }, (res) => res.resume().on('end', done));
        req.on('error', fail).end();
      }),
    ),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await recorder.close();
  return ms;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const withCa = [];
const insecure = [];
await round({ insecure: true }); // warm-up: load node:tls, the worker, the first handshakes
for (let i = 0; i < ROUNDS; i++) {
  withCa.push(await round({ ca: [join(dir, 'ca.pem')] }));
  insecure.push(await round({ insecure: true }));
}
console.log(`${CONNECTIONS} concurrent new https connections through record, medians of ${ROUNDS} alternating rounds:`);
console.log(`  --ca ${median(withCa).toFixed(1)} ms   --insecure ${median(insecure).toFixed(1)} ms   --ca ÷ --insecure ${(median(withCa) / median(insecure)).toFixed(2)}`);
upstream.close();
rmSync(dir, { recursive: true, force: true });
