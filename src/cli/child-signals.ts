import type { ForwardChild } from './forward-child.js';

/**
 * Passes the signals that stop `record --forward -- <command>` on to the command so that each reaches
 * it once, and returns the call that stops doing so (once the command has exited).
 *
 * The command runs in our process group (runForwardChild), not detached: Node's `detached` starts a
 * new session, which would take the terminal from it, so that Ctrl-Z, `fg` and `bg` would stop and
 * resume the recorder without it, and a prompt it reads from /dev/tty (ssh, git) would fail. In our
 * group it keeps the terminal and job control as without the proxy, and gets what is sent to the group:
 * - SIGINT is not passed on: it is the terminal's Ctrl-C, or a kill of the whole group, which reached
 *   the command as it reached us. Passing it on made the command see each Ctrl-C twice, and a program
 *   that stops cleanly on the first and at once on the second (a test runner) never stopped cleanly.
 * - SIGTERM is passed on: it is sent to a process (kill <pid>), so the command did not get it.
 * Both are handled until the command has exited: a second Ctrl-C must not end the recorder (Node's
 * default) while the command is still stopping and before the recording is closed.
 */
export function passStopSignals(child: Pick<ForwardChild, 'kill'>): () => void {
  const onInterrupt = () => undefined;
  const onTerminate = () => child.kill('SIGTERM');
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  return () => {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  };
}
