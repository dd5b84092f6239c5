/**
 * `replay --forward --on-miss passthrough <recording> -- node client.mjs`: the command runs with the
 * variables `record --forward -- <command>` gives it, keeps its stdout, and the replay exits with its
 * code. The recorded host is answered from the recording with its stand-in stopped; a host the
 * recording does not hold is passed through to its stand-in and appended with its absolute URL.
 * With --proxy-auth the command's proxy URL carries the credentials; a request without them gets 407.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startForwardRecorder } from '../../src/record/start-forward-recorder.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { onCleanup, useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { viaProxy } from '../support/via-forward-proxy.js';
import { runCli } from './run-cli.js';
import { storedBytes } from '../support/stored-bytes.js';

useCleanups();

/**
 * GETs each URL in absolute form through the proxy HTTP_PROXY names (as every Node can), with the
 * credentials its URL carries (as curl and undici send them) and once without; says which
 * variables it was given, and exits 5.
 */
const CLIENT = String.raw`
import http from 'node:http';
const proxy = new URL(process.env.HTTP_PROXY);
const credentials = 'Basic ' + Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64');
const get = (url, auth = true) => new Promise((resolve, reject) => {
  http.get({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host, ...(auth ? { 'proxy-authorization': credentials } : {}) } }, (res) => {
    let text = '';
    res.on('data', (c) => (text += c));
    res.on('end', () => resolve(res.statusCode + ' ' + text));
  }).on('error', reject);
});
const answers = [];
for (const url of process.argv.slice(2)) answers.push(await get(url));
answers.push(await get(process.argv[2], false));
const given = ['HTTPS_PROXY', 'NODE_USE_ENV_PROXY', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'].filter((name) => process.env[name]);
process.stdout.write(JSON.stringify({ answers, given }) + '\n');
process.exit(5);
`;

async function standIn(name: string): Promise<{ server: Server; url: string }> {
  let calls = 0;
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name, url: req.url, call: ++calls })));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('replay --forward -- <command>', () => {
  it("runs the command through the replay, passes a host it does not hold through and appends it, asks for --proxy-auth's credentials, and exits with the command's code", async () => {
    const dir = scratch();
    const caDir = dir.file('ca');
    const recorded = await standIn('recorded');
    const other = await standIn('other');
    const out = dir.file('forward.db');
    const recorder = await startForwardRecorder({ listen: 0, out, caDir, pipeline: 'inline' });
    const live = await viaProxy(recorder.url, `${recorded.url}/v1/a`);
    await recorder.close();
    await new Promise<void>((resolve) => recorded.server.close(() => resolve()));
    const client = dir.file('client.mjs');
    writeFileSync(client, CLIENT);

    const run = await runCli(['replay', '--forward', out, '--listen', '0', '--ca-dir', caDir, '--timing', 'none', '--on-miss', 'passthrough', '--proxy-auth', 'user:s3cr:et', '--', process.execPath, client, `${recorded.url}/v1/a`, `${other.url}/v1/b`]);
    expect(run.code).toBe(5);
    // stdout is the command's alone; ours went to stderr.
    expect(JSON.parse(run.stdout)).toEqual({
      answers: [`${live.status} ${live.body}`, `200 ${JSON.stringify({ name: 'other', url: '/v1/b', call: 1 })}`, '407 '],
      given: ['HTTPS_PROXY', 'NODE_USE_ENV_PROXY', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE'],
    });
    expect(run.stderr).toContain('miss GET http://127.0.0.1:');
    expect(run.stderr).toContain(`exited 5: 1 served, 1 miss`);

    const reader = RecordingReader.open(out);
    onCleanup(() => reader.close());
    expect(reader.exchanges().map((e) => e.url)).toEqual([`${recorded.url}/v1/a`, `${other.url}/v1/b`]);
    // The proxy's credentials are its own: never stored.
    expect(storedBytes(out).includes('s3cr')).toBe(false);
  });
});
