/**
 * `agent-proxy ca`: the work in-process (caOutput), and the built CLI once, whose --env lines a
 * POSIX shell evaluates.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caOutput } from '../../src/cli/ca-command.js';
import { useCleanups } from '../support/cleanups.js';
import { scratch } from '../support/temp-dir.js';
import { BIN, cliEnv } from './run-cli.js';
import { withoutNodeProxyWarning } from '../support/node-proxy-warning.js';

useCleanups();

describe('agent-proxy ca', () => {
  it('makes the CA on first use and prints its files and SHA-256 fingerprint; later runs print the same', async () => {
    const dir = scratch().file('ca');
    const first = await caOutput({ caDir: dir });
    expect(first.stderr).toBe(`made a new local CA in ${dir}\n`);
    expect(first.stdout).toMatch(new RegExp(`^certificate  ${dir}/ca-cert.pem\nkey          ${dir}/ca-key.pem \\(mode 0600\\)\nSHA-256      ([0-9A-F]{2}:){31}[0-9A-F]{2}\nsubject      CN=agent-proxy local CA`));
    expect(statSync(`${dir}/ca-key.pem`).mode & 0o777).toBe(0o600);
    expect(await caOutput({ caDir: dir })).toEqual({ stdout: first.stdout, stderr: '' });
  });

  it('--regenerate replaces the CA and says that clients must trust the new one', async () => {
    const dir = scratch().dir;
    const fingerprint = (text: string) => /SHA-256 +(\S+)/.exec(text)![1];
    const old = await caOutput({ caDir: dir });
    const renewed = await caOutput({ caDir: dir, regenerate: true });
    expect(fingerprint(renewed.stdout)).not.toBe(fingerprint(old.stdout));
    expect(renewed.stderr).toContain('clients that trusted the old one must now trust this one');
  });

  it('--env, evaluated by a shell from the built CLI, sets the proxy and the CA files, quoted for a folder with a space', () => {
    const dir = scratch().file("my ca's folder");
    const script = `eval "$("$0" "$1" ca --env --ca-dir "$2" --proxy http://127.0.0.1:9999)" && node -p 'JSON.stringify(process.env)'`;
    const run = spawnSync('/bin/sh', ['-c', script, process.execPath, BIN, dir], { env: cliEnv({ SSL_CERT_FILE: '' }), encoding: 'utf8' });
    expect(withoutNodeProxyWarning(run.stderr)).toBe(`made a new local CA in ${dir}\n`);
    expect(run.status).toBe(0);
    const env = JSON.parse(run.stdout) as Record<string, string>;
    expect(env).toMatchObject({
      HTTPS_PROXY: 'http://127.0.0.1:9999',
      http_proxy: 'http://127.0.0.1:9999',
      NO_PROXY: '127.0.0.1:9999',
      NODE_USE_ENV_PROXY: '1',
      NODE_EXTRA_CA_CERTS: `${dir}/ca-cert.pem`,
      SSL_CERT_FILE: `${dir}/ca-bundle.pem`,
      REQUESTS_CA_BUNDLE: `${dir}/ca-bundle.pem`,
      CURL_CA_BUNDLE: `${dir}/ca-bundle.pem`,
    });
    expect(statSync(`${dir}/ca-bundle.pem`).isFile()).toBe(true);
  });

  it('refuses a --proxy that is not http://host:port, as a usage error', async () => {
    await expect(caOutput({ caDir: scratch().dir, env: true, proxy: 'https://127.0.0.1:1' })).rejects.toMatchObject({ code: 'E_USAGE' });
  });
});
