/**
 * The TLS flags as a user runs them, through the built CLI: `record --target https://… --ca`,
 * `--insecure` (and its warning on every start), `--tls-cert/--tls-key`, and each misuse as one
 * stderr line with exit 2 and no recording left behind; and what `show` says of a recorded TLS upstream.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_PREFIX } from '../../src/core/program-name.js';
import { RecordingReader } from '../../src/store/recording-reader.js';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { HAS_OPENSSL, makeTestCertificates, startTlsFront, type CertPair, type TestCertificates } from '../support/tls-fixtures.js';
import { runBatch } from './cli-batch.js';
import { REPO, spawnCli, type CliProcess, type CliResult } from './run-cli.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const cleanups = fixturesAfterEach();
const { agui, scratch } = cleanups;

let certs: TestCertificates;
beforeAll(() => {
  if (HAS_OPENSSL) certs = makeTestCertificates();
});
afterAll(() => certs?.remove());

async function httpsAgui(pair: CertPair): Promise<string> {
  const agent = await agui();
  const front = await startTlsFront(pair, agent.port!);
  cleanups.push(() => front.close());
  return `https://localhost:${front.port}`;
}

function spawnRecord(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const r = spawnCli(['record', '--listen', '0', ...args], env);
  cleanups.push(async () => {
    if (r.child.exitCode === null && r.child.signalCode === null) {
      r.child.kill('SIGKILL');
      await r.exited;
    }
  });
  return r;
}

async function listening(r: CliProcess): Promise<string> {
  const line = await r.waitForLine(/^listening on /);
  return /^listening on (\S+) -> /.exec(line)![1];
}

/**
 * One `record --target https://… --ca <pem>` run of a GET /health, made by the first test that asks
 * and read by both that check it (the recording is only read): what the client got, how the recorder
 * ended, and the recording, in a folder kept until the file ends.
 */
type TrustedRun = { target: string; out: string; status: number; body: unknown; exit: { code: number | null; signal: NodeJS.Signals | null }; stderr: string };
let trustedRun: Promise<TrustedRun> | undefined;
let trustedFolder: TempDir | undefined;
afterAll(() => trustedFolder?.cleanup());
function recordTrusted(): Promise<TrustedRun> {
  trustedRun ??= (async () => {
    trustedFolder = tempDir();
    const target = await httpsAgui(certs.valid);
    const out = trustedFolder.file('tls.db');
    const r = spawnRecord(['--target', target, '--ca', certs.caFile, '--out', out]);
    const url = await listening(r);
    const response = await fetch(`${url}/health`);
    const body: unknown = response.status === 200 ? await response.json() : await response.text();
    await r.waitForLine(/ #1 GET \/health 200 /);
    r.child.kill('SIGINT');
    const exit = await r.exited;
    return { target, out, status: response.status, body, exit, stderr: r.stderr() };
  })();
  return trustedRun;
}

describe.skipIf(!HAS_OPENSSL)('TLS flags (CLI)', () => {
  it('record --target https://… --ca <pem>: forwards over TLS, prints no warning, and records the exchange', async () => {
    const { target, out, status, body, exit, stderr } = await recordTrusted();
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok', agent: 'agui-stand-in' });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stderr).toBe('');
    const reader = RecordingReader.open(out);
    try {
      expect(reader.recording().target).toBe(target);
      expect(reader.exchanges().map((e) => [e.path, e.status, e.outcome])).toEqual([['/health', 200, 'complete']]);
    } finally {
      reader.close();
    }
  });

  it("show prints an exchange's TLS facts (recorded in the worker thread) and --json carries them", async () => {
    const { out, exit } = await recordTrusted();
    expect(exit.code).toBe(0);

    const cert = new X509Certificate(certs.valid.cert);
    const seconds = (date: string) => new Date(date).toISOString().replace('.000Z', 'Z');
    const [shown, listedRun, detailRun] = await runBatch(
      [
        ['show', out, '--exchange', '1'],
        ['show', out, '--json'],
        ['show', out, '--exchange', '1', '--json'],
      ],
      { real: [] },
    );
    expect(shown.code).toBe(0);
    const line = shown.stdout.split('\n')[1];
    expect(line).toMatch(/^  TLS 1\.[23] \S+ · /);
    expect(line).toContain(` · CN=localhost issued by CN=agent-proxy test CA · valid ${seconds(cert.validFrom)}→${seconds(cert.validTo)} · sha256 ${cert.fingerprint256}`);
    expect(line).not.toContain('not authorized');

    const listed = JSON.parse(listedRun.stdout) as { exchanges: Array<{ tls: unknown }> };
    const detail = JSON.parse(detailRun.stdout) as { exchange: { tls: unknown } };
    const facts = { protocol: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.any(String), subject: 'CN=localhost', issuer: 'CN=agent-proxy test CA', fingerprint256: cert.fingerprint256, authorized: true };
    expect(listed.exchanges[0].tls).toMatchObject(facts);
    expect(detail.exchange.tls).toEqual(listed.exchanges[0].tls);
  });

  it('a certificate that failed the check is an upstream-tls-failed error of its exchange: findings, validate and show say what failed', async () => {
    const cases = [
      { pair: certs.expired, failed: 'expired certificate', code: 'CERT_HAS_EXPIRED' },
      { pair: certs.otherHost, failed: 'certificate for the wrong host', code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
    ];
    const recorded: Array<{ target: string; out: string }> = [];
    for (const { pair, code } of cases) {
      const target = await httpsAgui(pair);
      const out = scratch().file(`${code}.db`);
      const r = spawnRecord(['--target', target, '--ca', certs.caFile, '--out', out]);
      const url = await listening(r);
      expect((await fetch(`${url}/health`)).status).toBe(502);
      await r.waitForLine(/ #1 GET \/health 502 /);
      r.child.kill('SIGINT');
      expect((await r.exited).code).toBe(0);
      recorded.push({ target, out });
    }
    const reads = (out: string) => [
      ['findings', out, '--fail-on', 'error'],
      ['findings', out, '--json', '--rule', 'upstream-tls-failed'],
      ['findings', out, '--severity', 'warning'],
      ['validate', out],
      ['validate', out, '--json'],
      ['show', out, '--exchange', '1'],
      ['show', out, '--json'],
    ];
    // What the commands say of both, in one batch of CLI runs (test/cli/cli-batch.ts); the first of each recording also as a process of its own.
    const results = await runBatch(recorded.flatMap(({ out }) => reads(out)), { real: [0, 7] });
    for (const [i, { failed, code }] of cases.entries()) {
      const { target, out } = recorded[i];
      const [listed, asJson, warnings, validated, validatedJson, shownText, shownJson] = results.slice(7 * i, 7 * i + 7);
      expect(listed.code, code).toBe(1);
      const [line, total] = listed.stdout.trimEnd().split('\n');
      expect(line, code).toMatch(new RegExp(`^#1 GET /health  exchange  error upstream-tls-failed: the upstream's TLS failed: ${failed} \\(TLS certificate check of ${target.replace(/\./g, '\\.')} failed: .*\\[${code}\\]\\)$`));
      expect(total).toBe('1 finding (1 error, 0 warnings)');
      const json = JSON.parse(asJson.stdout) as { findings: Array<Record<string, unknown>> };
      expect(json.findings).toEqual([
        expect.objectContaining({ exchange: 1, method: 'GET', path: '/health', seq: 0, label: 'exchange', rule: 'upstream-tls-failed', severity: 'error', pointer: '' }),
      ]);
      expect(warnings.stdout).toBe('0 findings (0 errors, 0 warnings)\n');

      expect(validated.code, code).toBe(1);
      expect(validated.stdout).toContain(`${out} #1 GET /health  error upstream-tls-failed: the upstream's TLS failed: ${failed} (`);
      expect(validated.stdout).toContain('0 messages (unknown protocol): 0 valid, 0 invalid, 0 unchecked; 1 error, 0 warnings');
      const report = JSON.parse(validatedJson.stdout) as { exchangeFindings: unknown[]; summary: { errors: number } };
      expect(report.exchangeFindings).toEqual([expect.objectContaining({ stream: '#1 GET /health', rule: 'upstream-tls-failed', severity: 'error' })]);
      expect(report.summary.errors).toBe(1);

      const shown = shownText.stdout.split('\n');
      expect(shown[1]).toMatch(new RegExp(`^  TLS .*not authorized: ${code}$`));
      expect(shown[2]).toMatch(new RegExp(`^  error upstream-tls-failed: the upstream's TLS failed: ${failed} `));
      // show's totals count the exchange's own finding, as findings lists it: the numbers agree.
      const summary = JSON.parse(shownJson.stdout) as { totals: { findings: number } };
      expect(summary.totals.findings).toBe(1);
    }
  });

  it('--ca adds to the CAs Node trusts: one given by NODE_EXTRA_CA_CERTS still counts', async () => {
    const target = await httpsAgui(certs.valid);
    // The test CA comes from the environment; --ca adds another (unrelated) certificate.
    const r = spawnRecord(['--target', target, '--ca', certs.selfSigned.certFile, '--out', scratch().file('extra.db')], { NODE_EXTRA_CA_CERTS: certs.caFile });
    const url = await listening(r);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    r.child.kill('SIGINT');
    expect((await r.exited).code).toBe(0);
  });

  it('record --insecure: an expired certificate is let through, with a loud warning line on stderr', async () => {
    const target = await httpsAgui(certs.expired);
    const r = spawnRecord(['--target', target, '--insecure', '--out', scratch().file('insecure.db')]);
    const url = await listening(r);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    r.child.kill('SIGINT');
    expect((await r.exited).code).toBe(0);
    expect(r.stderr()).toBe(`${LINE_PREFIX}WARNING: --insecure: the TLS certificate of ${target} is NOT checked; anyone on the network path can read and change this traffic\n`);
  });

  it('record without the CA: the failed check is a 502 for the client and an error line in the live view', async () => {
    const target = await httpsAgui(certs.valid);
    const r = spawnRecord(['--target', target, '--out', scratch().file('untrusted.db')]);
    const url = await listening(r);
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(502);
    const { error } = (await response.json()) as { error: { code: string; tls: { check: string } } };
    expect(error).toMatchObject({ code: 'upstream_tls_failed', tls: { check: 'untrusted' } });
    await r.waitForLine(/ #1 GET \/health 502 /);
    r.child.kill('SIGINT');
    expect((await r.exited).code).toBe(0);
  });

  it('record --tls-cert/--tls-key: the listening line says https://', async () => {
    const target = await httpsAgui(certs.valid);
    const r = spawnRecord(['--target', target, '--ca', certs.caFile, '--tls-cert', certs.valid.certFile, '--tls-key', certs.valid.keyFile, '--out', scratch().file('listen.db')]);
    expect(await listening(r)).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    r.child.kill('SIGINT');
    expect((await r.exited).code).toBe(0);
  });

  const BIG_PEM_BYTES = 2 * 1024 * 1024;
  let bigPemFile: string | undefined;
  /** A PEM file of 2 MiB: a real certificate padded with a comment-like tail. */
  const bigPem = (): string => {
    if (!bigPemFile) {
      bigPemFile = scratch().file('big.pem');
      const head = readFileSync(certs.caFile);
      writeFileSync(bigPemFile, Buffer.concat([head, Buffer.alloc(BIG_PEM_BYTES - head.length, 0x41)]));
    }
    return bigPemFile;
  };
  const misuses: Array<{ name: string; argv: (out: string) => string[]; says: (out: string) => string }> = [
    { name: '--ca that cannot be read', argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--ca', `${out}.missing.pem`], says: (out) => `--ca '${out}.missing.pem' cannot be read: ENOENT` },
    { name: '--ca that holds no certificate', argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--ca', `${REPO}package.json`], says: () => `--ca '${REPO}package.json' holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)` },
    // A device or an endless file must be refused before it is read: /dev/zero used to be read until memory ran out.
    { name: '--ca that is a device', argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--ca', '/dev/zero'], says: () => "--ca '/dev/zero' is not a regular file (a PEM file is expected)" },
    { name: '--ca over 1 MiB', argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--ca', bigPem()], says: () => `--ca '${bigPem()}' is ${BIG_PEM_BYTES} bytes, more than the 1048576 a PEM file may have here` },
    { name: '--tls-cert that is a device', argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--tls-cert', '/dev/zero', '--tls-key', certs.valid.keyFile], says: () => "--tls-cert '/dev/zero' is not a regular file (a PEM file is expected)" },
    { name: '--ca with an http:// target', argv: (out) => ['record', '--target', 'http://localhost:9', '--listen', '0', '--out', out, '--ca', certs.caFile], says: () => "--ca goes with an https:// target, not 'http://localhost:9'" },
    { name: '--insecure with --stdio', argv: () => ['record', '--insecure', '--stdio', '--', 'node', '-e', ''], says: () => '--insecure goes with the HTTP proxy, not --stdio' },
    { name: '--tls-cert without --tls-key', argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--tls-cert', certs.valid.certFile], says: () => '--tls-cert needs --tls-key, its private key' },
    {
      name: '--tls-key that does not belong to --tls-cert',
      argv: (out) => ['record', '--target', 'https://localhost:9', '--listen', '0', '--out', out, '--tls-cert', certs.valid.certFile, '--tls-key', certs.selfSigned.keyFile],
      says: () => `--tls-cert '${certs.valid.certFile}' and --tls-key '${certs.selfSigned.keyFile}' cannot serve TLS: `,
    },
    { name: 'fixture --tls-key without --tls-cert', argv: (out) => ['fixture', out, '--mode', 'record', '--target', 'https://localhost:9', '--listen', '0', '--tls-key', certs.valid.keyFile], says: () => '--tls-key needs --tls-cert, the certificate it belongs to' },
    { name: 'fixture --ca with an http:// target', argv: (out) => ['fixture', out, '--mode', 'record', '--target', 'http://localhost:9', '--listen', '0', '--ca', certs.caFile], says: () => "--ca goes with an https:// target, not 'http://localhost:9'" },
    { name: 'replay --ca without passthrough', argv: (out) => ['replay', out, '--ca', certs.caFile], says: () => '--ca is for the https:// --target that --on-miss passthrough forwards to; add --on-miss passthrough --target <url>, or drop it' },
  ];
  // Every misuse in one batch of CLI runs (test/cli/cli-batch.ts), made before the first test: a
  // process each would cost ~0.3 s of CPU apiece. The first of record's and of fixture's, and
  // replay's, also run as processes of their own, which must print the same.
  const misused = new Map<string, { out: string; result: CliResult }>();
  let outs: TempDir | undefined;
  beforeAll(async () => {
    outs = tempDir();
    const runs = misuses.map((misuse, i) => ({ name: misuse.name, out: outs!.file(`never-${i}.db`) }));
    const argvs = misuses.map((misuse, i) => misuse.argv(runs[i].out));
    const real = [0, argvs.findIndex((args) => args[0] === 'fixture'), argvs.findIndex((args) => args[0] === 'replay')];
    const results = await runBatch(argvs, { real });
    runs.forEach((run, i) => misused.set(run.name, { out: run.out, result: results[i] }));
  });
  afterAll(() => outs?.cleanup());
  for (const misuse of misuses) {
    it(`${misuse.name}: one line on stderr, exit 2, no recording`, () => {
      const { out, result } = misused.get(misuse.name)!;
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0].startsWith(`${LINE_PREFIX}${misuse.says(out)}`), result.stderr).toBe(true);
      expect(existsSync(out)).toBe(false);
    });
  }
});
