import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from './run-cli.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

describe('the program name', () => {
  it('is installed as agent-proxy only: `proxy` is the npm package proxy\'s command', () => {
    expect(pkg.bin).toEqual({ 'agent-proxy': 'bin/agent-proxy.js' });
  });

  it('is what the help text calls the program, for every command', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: agent-proxy \[options\] \[command\]/);
    const replay = await runCli(['replay', '--help']);
    expect(replay.stdout).toMatch(/^Usage: agent-proxy replay /);
    expect(top.stdout + replay.stdout).not.toMatch(/(^|[\s`(])proxy (record|replay|show|diff|export|import|view|demo|validate)\b/m);
  });

  it('still runs as `node bin/proxy.js` in a clone, the name older scripts use', () => {
    const old = spawnSync(process.execPath, [join(REPO, 'bin/proxy.js'), '--version'], { encoding: 'utf8' });
    expect(old.status).toBe(0);
    expect(old.stdout.trim()).toBe(pkg.version);
  });
});
