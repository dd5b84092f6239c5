import { Command } from 'commander';
import type { CommandResult } from './command-result.js';
import { EXIT_OK } from './exit-codes.js';
import { openLocalCa, type LocalCa } from '../net/ca/local-ca.js';
import { DEFAULT_PROXY_URL, proxyEnvironment, shellExportLines } from '../net/ca/proxy-environment.js';
import { NODE_ROOTS_SOURCE, writeTrustBundle } from '../net/ca/trust-bundle.js';
import { defaultCaDir } from '../net/ca/ca-folder.js';

export interface CaOptions {
  caDir?: string;
  regenerate?: boolean;
  env?: boolean;
  proxy?: string;
}

/** What `ca` prints: stdout (the CA, or with --env only shell lines) and stderr (notes, so `eval "$(… --env)"` stays clean). */
export interface CaOutput {
  stdout: string;
  stderr: string;
}

export function caCommand(result: CommandResult): Command {
  return new Command('ca')
    .description("the forward proxy's local certificate authority: print its path and fingerprint (making it on first use), replace it, or print the shell lines that trust it and use the proxy")
    .option('--ca-dir <dir>', `the CA's folder (default $XDG_CONFIG_HOME/agent-proxy/ca, else ~/.config/agent-proxy/ca)`)
    .option('--regenerate', 'replace the CA with a new one: clients that trusted the old one must trust the new one')
    .option('--env', 'print POSIX shell lines that make a command use the proxy and trust the CA: eval "$(agent-proxy ca --env)"')
    .option('--proxy <url>', `with --env: the forward proxy's address (default ${DEFAULT_PROXY_URL})`)
    .action(async (options: CaOptions) => {
      const output = await caOutput(options);
      process.stderr.write(output.stderr);
      process.stdout.write(output.stdout);
      result.code = EXIT_OK;
    });
}

/** The work of `ca`, apart from the process: @internal exported for its test. */
export async function caOutput(options: CaOptions, env: NodeJS.ProcessEnv = process.env): Promise<CaOutput> {
  const ca = await openLocalCa({ dir: options.caDir ?? defaultCaDir(env), regenerate: options.regenerate });
  const notes = options.regenerate
    ? `a new CA replaces the one in ${ca.dir}: clients that trusted the old one must now trust this one (NODE_EXTRA_CA_CERTS, a system trust store; see docs/forward.md)\n`
    : ca.created
      ? `made a new local CA in ${ca.dir}\n`
      : '';
  if (options.env) {
    const bundle = writeTrustBundle(ca, env);
    const variables = proxyEnvironment({ proxyUrl: options.proxy ?? DEFAULT_PROXY_URL, ca, bundleFile: bundle.file });
    const from = bundle.systemSource === NODE_ROOTS_SOURCE ? `${NODE_ROOTS_SOURCE} (no system CA bundle was found)` : bundle.systemSource;
    return { stdout: `# agent-proxy local CA ${ca.fingerprint256}\n# ${bundle.file}: the CAs of ${from}, then this CA\n${shellExportLines(variables)}`, stderr: notes };
  }
  return { stdout: describeCa(ca), stderr: notes };
}

function describeCa(ca: LocalCa): string {
  return [
    `certificate  ${ca.certFile}`,
    `key          ${ca.keyFile} (mode 0600)`,
    `SHA-256      ${ca.fingerprint256}`,
    `subject      ${ca.subject.replace(/\n/g, ', ')}`,
    `valid        ${ca.validFrom.toISOString()} to ${ca.validTo.toISOString()}`,
    '',
  ].join('\n');
}
