import { parseListen, type ListenAddress } from '../../net/addresses.js';
import { isLoopbackHost } from '../../net/loopback.js';
import { UsageError } from '../../core/errors.js';

export const DEFAULT_INSPECTOR_PORT = 8790;

/**
 * Where the inspector listens: TCP, on loopback unless `allowRemote` says otherwise, since whoever
 * can reach it can read the whole recording, through the page or its API. Light on imports, so the
 * CLI can check the address before it starts anything.
 */
export function inspectorListen(value: string | number | undefined, allowRemote: boolean | undefined, flag = '--listen'): ListenAddress & { kind: 'tcp' } {
  const listen = parseListen(value ?? DEFAULT_INSPECTOR_PORT, flag);
  if (listen.kind !== 'tcp') throw new UsageError(`${flag} '${value}': the inspector listens on TCP only ([host:]port)`);
  if (!isLoopbackHost(listen.host) && !allowRemote) {
    throw new UsageError(
      `the inspector would listen on ${listen.host}, which other machines can reach, and serve them the whole recording; use a loopback address (127.0.0.1, ::1, localhost), or add --allow-remote to do it on purpose`,
    );
  }
  return listen;
}
