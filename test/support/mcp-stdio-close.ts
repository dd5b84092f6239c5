import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * Closes an SDK client over stdio as the MCP specification's shutdown goes (stdin ended, then SIGTERM
 * for a server that does not exit by itself), but without the SDK's deadlines: its close() sends
 * SIGTERM 2 s after ending stdin and SIGKILL 2 s later, which on a loaded machine can kill
 * `agent-proxy record --stdio` before it has written its recording. Here the child's own exit is
 * awaited. `terminate: false` for a child that exits when its stdin ends (a replay).
 */
export async function closeWhenExited(client: Client, transport: StdioClientTransport, options: { terminate: boolean }): Promise<void> {
  // The transport keeps its child private; once it has exited, the SDK's close() has nothing to kill.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    // server-everything keeps running after its stdin ends (its timers), so it is sent the SIGTERM a client
    // then sends, and only that: with its stdin ended too, it sometimes exited 0 before the signal that the
    // recorder forwards reached it, and two recordings of a pair ended differently (an exit code against a signal).
    if (options.terminate) child.kill('SIGTERM');
    else child.stdin?.end();
    await exited;
  }
  await client.close();
}
