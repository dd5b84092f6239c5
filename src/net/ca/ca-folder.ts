import { homedir } from 'node:os';
import { join } from 'node:path';

/** The files of a CA folder. */
export interface CaFiles {
  dir: string;
  /** The private key followed by its certificate, mode 0600: the one file that makes the CA, written in one step. */
  keyFile: string;
  /** The certificate alone: what clients are told to trust. */
  certFile: string;
}

/**
 * Where the CA lives when no folder is given: `$XDG_CONFIG_HOME/agent-proxy/ca/`, else
 * `~/.config/agent-proxy/ca/` (a relative XDG_CONFIG_HOME is ignored, as the XDG spec says).
 */
export function defaultCaDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const config = env.XDG_CONFIG_HOME;
  const base = config !== undefined && config.startsWith('/') ? config : join(home, '.config');
  return join(base, 'agent-proxy', 'ca');
}

export function caFiles(dir: string): CaFiles {
  return { dir, keyFile: join(dir, 'ca-key.pem'), certFile: join(dir, 'ca-cert.pem') };
}
