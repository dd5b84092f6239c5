/**
 * Why a peer could not be reached, in words, with Node's code kept at the end. The same code means
 * different things by transport (ENOENT is "no socket at that path" on connect, "no such command" on
 * spawn), which is why a recording stores a code of its own and this text, never Node's bare code.
 */

const CONNECT_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no socket at that path',
  ECONNREFUSED: 'nothing listens on that socket',
  EACCES: 'permission denied',
  ENOTSOCK: 'that path is not a socket',
};

const SPAWN_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such command',
  EACCES: 'not executable (permission denied)',
  ENOTDIR: 'no such command (a folder in its path is a file)',
};

function reasonOf(reasons: Readonly<Record<string, string>>, error: NodeJS.ErrnoException): string {
  const code = error.code;
  if (code !== undefined && Object.hasOwn(reasons, code)) return `${reasons[code]} (${code})`;
  return error.message;
}

/** `no socket at that path (ENOENT)` for a failed connect to a unix socket; Node's message when the code is not one of these. */
export function socketConnectReason(error: NodeJS.ErrnoException): string {
  return reasonOf(CONNECT_REASONS, error);
}

/** `no such command (ENOENT)` for a child that could not be started; Node's message when the code is not one of these. */
export function spawnFailureReason(error: NodeJS.ErrnoException): string {
  return reasonOf(SPAWN_REASONS, error);
}

const HOST_CONNECT_REASONS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  ECONNREFUSED: 'nothing listens on that port',
  ECONNRESET: 'the host reset the connection',
  ETIMEDOUT: 'the host did not answer',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the network',
};

/** `nothing listens on that port (ECONNREFUSED)` for a failed connect to host:port; Node's message when the code is not one of these. */
export function hostConnectReason(error: NodeJS.ErrnoException): string {
  return reasonOf(HOST_CONNECT_REASONS, error);
}
