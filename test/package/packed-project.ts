/**
 * The package as a stranger gets it: `npm pack` of this repository (what a publish or a git
 * install ships), installed with npm into a fresh project in a temp dir.
 *
 * The install runs offline and compiles nothing: the package's own dependencies (and any extra
 * ones a test needs, such as vitest) are given to npm as `file:` links to this repository's
 * node_modules, so npm links them instead of fetching them, and better-sqlite3 keeps the binary
 * `npm ci` built. The package itself is unpacked from the tarball, so it holds exactly what the
 * tarball holds, and a runtime import of anything that is not one of its dependencies fails.
 *
 * The repository is packed, and installed with each set of extra dependencies, once per vitest run
 * by the first file that asks, into the folder test/support/package-tarball.ts made; each file gets
 * a copy of that install to change as it likes.
 */
import { execFile, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/waits.js';

const execFileText = promisify(execFile);

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

interface Packed {
  tarball: string;
  files: string[];
}

type Outcome<T> = T | { error: string };

/**
 * What `make` gives, made once per vitest run by the first caller, in this worker or another; the
 * others wait for it. The claim is a file only one process can create; the outcome (or why making
 * it failed) is written to `<name>.json` in the run's folder.
 */
async function oncePerRun<T>(name: string, make: (dir: string) => Promise<T>): Promise<T> {
  const dir = inject('packageTarballDir');
  const result = join(dir, `${name}.json`);
  let claimed = true;
  try {
    writeFileSync(join(dir, `${name}.claimed`), String(process.pid), { flag: 'wx' });
  } catch {
    claimed = false;
  }
  if (claimed) {
    let outcome: Outcome<T>;
    try {
      outcome = await make(dir);
    } catch (error) {
      outcome = { error: String(error) };
    }
    // Written whole, then renamed: a waiting process never reads half of it.
    writeFileSync(`${result}.tmp`, JSON.stringify(outcome));
    renameSync(`${result}.tmp`, result);
  }
  // Another process's file: nothing here signals it, so this looks every 100 ms.
  await waitFor(() => existsSync(result), `${name} in ${dir}`, { pollMs: 100 });
  const outcome = JSON.parse(readFileSync(result, 'utf8')) as Outcome<T>;
  if (typeof outcome === 'object' && outcome !== null && 'error' in outcome) throw new Error(`${name} failed: ${outcome.error}`);
  return outcome as T;
}

/** The run's tarball of the repository (its dist/ as built: `npm test` builds first). */
function packedTarball(): Promise<Packed> {
  return oncePerRun('pack', async (dir) => {
    // --ignore-scripts: dist/ is already built; prepare would only build it again.
    const { stdout } = await execFileText('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: REPO, env: projectEnv(), encoding: 'utf8' });
    const packed = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    return { tarball: join(dir, packed[0].filename), files: packed[0].files.map((f) => f.path) };
  });
}

/** `npm install` in a project folder: offline, no scripts, the `file:` dependencies linked. */
async function npmInstall(project: string): Promise<void> {
  await execFileText('npm', ['install', '--offline', '--ignore-scripts', '--install-links=false', '--no-audit', '--no-fund'], { cwd: project, env: projectEnv(), encoding: 'utf8' });
}

function writeManifest(project: string, dependencies: Record<string, string>): void {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2));
}

/**
 * The run's tarball installed with these extra dependencies into a project of its own, once per
 * run: the two example tests both want vitest, and an install is ~4 s of CPU where a copy is 0.1.
 * The tarball and its dependencies go into an empty project (`npm install` of `file:` links to the
 * tarball and this checkout's node_modules); a project with extra dependencies is a copy of that one
 * where they are added the way a user adds one later, by a second `npm install` (~1 s: the tarball's
 * 34 MB are not unpacked again, nor copied: the copy's package files are hard links). The projects sit at the same depth below the temp dir as the copies,
 * so npm's relative links still resolve.
 */
function installedProject(tarball: string, extraDependencies: string[]): Promise<string> {
  const name = `install-with-${extraDependencies.join('-').replace(/[^a-z0-9]+/gi, '-') || 'nothing'}`;
  const dependencies: Record<string, string> = { [MANIFEST.name]: `file:${tarball}` };
  for (const dependency of Object.keys(MANIFEST.dependencies)) dependencies[dependency] = `file:${join(REPO, 'node_modules', dependency)}`;
  if (extraDependencies.length === 0) {
    return oncePerRun(name, async (dir) => {
      const project = join(dir, name);
      mkdirSync(project);
      writeManifest(project, dependencies);
      await npmInstall(project);
      return project;
    });
  }
  return oncePerRun(name, async (dir) => {
    const plain = await installedProject(tarball, []);
    const project = join(dir, name);
    // The package's files as hard links, as in each file's copy: adding a dependency leaves them as they are.
    copyInstall(plain, project);
    for (const dependency of extraDependencies) dependencies[dependency] = `file:${join(REPO, 'node_modules', dependency)}`;
    writeManifest(project, dependencies);
    await npmInstall(project);
    return project;
  });
}

/** A folder's tree again at `to`: its folders made, its files hard links to the same bytes, its symlinks as written. */
function linkTree(from: string, to: string): void {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else linkSync(source, target);
  }
}

/**
 * A copy of the run's install, for one file or for a project that adds dependencies to it. The
 * installed package's files (~1,450 files, 37 MB: ~0.4 s of CPU to copy) are hard links to the run's:
 * no test writes into node_modules/agent-proxy (a file written there would be written in every copy),
 * only next to it in the project.
 */
function copyInstall(installed: string, dir: string): void {
  const installedPackage = join(installed, 'node_modules', MANIFEST.name);
  // The links as npm wrote them (relative), not resolved to the run's install.
  cpSync(installed, dir, { recursive: true, verbatimSymlinks: true, filter: (source) => source !== installedPackage });
  linkTree(installedPackage, join(dir, 'node_modules', MANIFEST.name));
}

/**
 * A dependency only the compiler reads (`@types/...`): linked into a file's copy as npm links it, with
 * no npm install of its own (~1 s of CPU: npm, and a copy of the install to add it to).
 */
const isTypesOnly = (dependency: string) => dependency.startsWith('@types/');

/** A new project with the run's tarball of the repository installed (a copy of the run's install). */
export async function installPackedProject(options: { extraDependencies?: string[] } = {}): Promise<PackedProject> {
  const { tarball, files } = await packedTarball();
  const extras = options.extraDependencies ?? [];
  const installed = await installedProject(tarball, extras.filter((dependency) => !isTypesOnly(dependency)));
  const folder = tempDir('agent-proxy-packed-');
  const dir = join(folder.dir, 'project');
  copyInstall(installed, dir);
  // What `npm install` of a `file:` link to this checkout's folder leaves: a relative symlink.
  for (const dependency of extras.filter(isTypesOnly)) {
    const link = join(dir, 'node_modules', dependency);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(relative(dirname(link), join(REPO, 'node_modules', dependency)), link);
  }
  return {
    dir,
    tarball,
    files,
    bin: join(dir, 'node_modules', '.bin', 'agent-proxy'),
    run: (file, args, extra = {}) => spawnSync(file, args, { cwd: dir, env: projectEnv(extra), encoding: 'utf8' }),
    remove: () => folder.cleanup(),
  };
}
