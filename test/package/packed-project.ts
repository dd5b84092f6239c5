/**
 * The package as a stranger gets it: `npm pack` of this repository (what a publish or a git
 * install ships), installed with npm into a fresh project in a temp dir.
 *
 * The install runs offline and compiles nothing: the package's own dependencies (and any extra
 * ones a test needs, such as vitest) are given to npm as `file:` links to this repository's
 * node_modules, so npm links them instead of fetching them, and better-sqlite3 keeps the binary
 * `npm ci` built. The package itself is unpacked from the tarball, so it holds exactly what the
 * tarball holds, and a runtime import of anything that is not one of its dependencies fails.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

export interface PackedProject {
  /** The project folder; `node_modules/agent-proxy` is the installed package. */
  dir: string;
  /** The tarball `npm pack` wrote. */
  tarball: string;
  /** Every path in the tarball, relative to the package root. */
  files: string[];
  /** The installed bin script, as npm linked it (`node_modules/.bin/agent-proxy`). */
  bin: string;
  /** Runs a command in the project, with npm offline and no colour. */
  run(file: string, args: string[], env?: NodeJS.ProcessEnv): SpawnSyncReturns<string>;
  remove(): void;
}

interface Manifest {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
}

export const MANIFEST = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;

/** The environment of a plain shell: without the npm_* settings of an enclosing `npm test`, npm offline. */
export function projectEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false', NO_COLOR: '1', AGENT_PROXY_SCHEMAS: '', ...extra };
}

/** Packs the repository (its dist/ as built: `npm test` builds first) and installs it into a new project. */
export function installPackedProject(options: { extraDependencies?: string[] } = {}): PackedProject {
  const folder = tempDir('agent-proxy-packed-');
  const root = folder.dir;
  const env = projectEnv();
  // --ignore-scripts: dist/ is already built; prepare would only build it again.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: REPO, env, encoding: 'utf8' }),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = join(root, packed[0].filename);
  const dir = join(root, 'project');
  mkdirSync(dir);
  const dependencies: Record<string, string> = { [MANIFEST.name]: `file:${tarball}` };
  for (const name of [...Object.keys(MANIFEST.dependencies), ...(options.extraDependencies ?? [])]) {
    dependencies[name] = `file:${join(REPO, 'node_modules', name)}`;
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2));
  execFileSync('npm', ['install', '--offline', '--ignore-scripts', '--install-links=false', '--no-audit', '--no-fund'], { cwd: dir, env, encoding: 'utf8', stdio: 'pipe' });
  return {
    dir,
    tarball,
    files: packed[0].files.map((f) => f.path),
    bin: join(dir, 'node_modules', '.bin', 'agent-proxy'),
    run: (file, args, extra = {}) => spawnSync(file, args, { cwd: dir, env: projectEnv(extra), encoding: 'utf8' }),
    remove: () => folder.cleanup(),
  };
}
