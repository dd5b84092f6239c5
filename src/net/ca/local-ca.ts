import { chmodSync, closeSync, fstatSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CaError } from '../../core/errors.js';
import { caFiles, defaultCaDir } from './ca-folder.js';
import { createCaMaterial } from './ca-certificate.js';
import { systemWallClock, type WallClock } from './wall-clock.js';
import { makeFolders } from '../../core/make-folders.js';

/** A CA ready to sign: where it is, what it is, and its key and certificate. */
export interface LocalCa {
  readonly dir: string;
  /** The key and the certificate, mode 0600. */
  readonly keyFile: string;
  /** The certificate alone: what clients trust (NODE_EXTRA_CA_CERTS, a system trust store). */
  readonly certFile: string;
  readonly keyPem: string;
  readonly certPem: string;
  /** SHA-256 of the certificate, colon-separated upper-case hex, as browsers and `openssl x509 -fingerprint` show it. */
  readonly fingerprint256: string;
  readonly subject: string;
  readonly validFrom: Date;
  readonly validTo: Date;
  /** True when this call made the CA (first use, or `regenerate`). */
  readonly created: boolean;
}

export interface OpenLocalCaOptions {
  /** The CA's folder; defaultCaDir() when not given. */
  dir?: string;
  /** Replace the CA in the folder with a new one. */
  regenerate?: boolean;
  clock?: WallClock;
}

const PEM_KEY = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n?/;
const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/;

/**
 * Opens the CA in its folder, making it on first use. The key and certificate are written together
 * to a temp file and linked into place (link fails when the file exists), so two processes starting
 * at once make one CA: the second one's link fails and it reads the first one's. A key file that
 * other users can read, or a folder they can write to, is refused (CaError E_CA_KEY_EXPOSED).
 */
export async function openLocalCa(options: OpenLocalCaOptions = {}): Promise<LocalCa> {
  const files = caFiles(options.dir ?? defaultCaDir());
  const clock = options.clock ?? systemWallClock;
  ensureFolder(files.dir);
  if (!options.regenerate) {
    const existing = readCaFile(files.keyFile);
    if (existing !== undefined) return finish(files, existing, false, clock);
  }
  const material = await createCaMaterial(clock);
  const text = material.keyPem + material.certPem;
  const temp = join(files.dir, `.ca-key.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  try {
    if (options.regenerate) {
      renameSync(temp, files.keyFile);
    } else {
      try {
        linkSync(temp, files.keyFile);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // Another process made it first: use theirs.
        return finish(files, readCaFile(files.keyFile)!, false, clock);
      }
    }
  } finally {
    rmSync(temp, { force: true });
  }
  // Checked after writing too: an odd file system or ACL may not keep the mode asked for.
  return finish(files, readCaFile(files.keyFile)!, true, clock);
}

/** The folder, made 0700 when missing; one that other users may write to is refused (they could swap the key). */
function ensureFolder(dir: string): void {
  makeFolders(dir, 0o700);
  if (process.platform === 'win32') return;
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o022) !== 0) {
    throw new CaError('E_CA_KEY_EXPOSED', `the CA folder '${dir}' can be written by other users (mode ${octal(mode)}): chmod 700 it`);
  }
}

/** The key file's text, or undefined when there is none yet. Its mode is checked on the open descriptor. */
function readCaFile(keyFile: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(keyFile, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CaError('E_CA_INVALID', `the CA key file '${keyFile}' cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new CaError('E_CA_INVALID', `the CA key file '${keyFile}' is not a regular file`);
    const mode = stat.mode & 0o777;
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new CaError('E_CA_KEY_EXPOSED', `the CA key file '${keyFile}' can be read by other users (mode ${octal(mode)}): it is not used; chmod 600 it if nobody else read it, else regenerate the CA`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function finish(files: ReturnType<typeof caFiles>, text: string, created: boolean, clock: WallClock): LocalCa {
  const { X509Certificate, createPrivateKey } = process.getBuiltinModule('node:crypto');
  const keyPem = PEM_KEY.exec(text)?.[0];
  const certPem = PEM_CERT.exec(text)?.[0];
  const regenerate = `; \`agent-proxy ca --regenerate --ca-dir ${files.dir}\` makes a new one`;
  if (keyPem === undefined || certPem === undefined) {
    throw new CaError('E_CA_INVALID', `the CA key file '${files.keyFile}' does not hold a private key and a certificate${regenerate}`);
  }
  let certificate: InstanceType<typeof X509Certificate>;
  try {
    certificate = new X509Certificate(certPem);
    if (!certificate.ca || !certificate.checkPrivateKey(createPrivateKey(keyPem))) throw new Error('its certificate is not a CA certificate for its key');
  } catch (error) {
    throw new CaError('E_CA_INVALID', `the CA key file '${files.keyFile}' is not a usable CA: ${(error as Error).message}${regenerate}`, { cause: error });
  }
  // Leaves signed by an expired CA fail every client's check: say so once, here.
  const validTo = new Date(certificate.validTo);
  if (validTo.getTime() <= clock.now()) throw new CaError('E_CA_INVALID', `the CA in '${files.dir}' expired on ${validTo.toISOString()}${regenerate}`);
  writeCertFile(files.certFile, certPem);
  return {
    ...files,
    keyPem,
    certPem,
    fingerprint256: certificate.fingerprint256,
    subject: certificate.subject,
    validFrom: new Date(certificate.validFrom),
    validTo,
    created,
  };
}

/** The certificate alone beside the key, rewritten (atomically) only when it differs: every process writes the same bytes. */
function writeCertFile(certFile: string, certPem: string): void {
  try {
    if (readFileSync(certFile, 'utf8') === certPem) return;
  } catch {
    // missing: written below
  }
  const temp = `${certFile}.${process.pid}.tmp`;
  writeFileSync(temp, certPem, { mode: 0o644 });
  chmodSync(temp, 0o644);
  renameSync(temp, certFile);
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}
