/** Clients of the NDJSON socket for the ndjson tests. */
import { createConnection, type Socket } from 'node:net';
import { within } from '../record/record-helpers.js';
import { capturedNdjsonConversation } from '../support/ndjson-daemon.js';

export type Json = Record<string, unknown>;

/** A client of the NDJSON socket: sends a line, collects every line that comes back. */
export async function connect(socketPath: string): Promise<{ socket: Socket; lines: Json[]; waitFor(pred: (l: Json) => boolean): Promise<void>; closed: Promise<void> }> {
  const socket = createConnection({ path: socketPath });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const lines: Json[] = [];
  const waiters: Array<() => void> = [];
  let pending = '';
  socket.setEncoding('utf8').on('data', (d: string) => {
    pending += d;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const p of parts) lines.push(JSON.parse(p) as Json);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    socket,
    lines,
    closed,
    waitFor: (pred) =>
      within(
        10_000,
        new Promise<void>((resolve) => {
          const check = () => (lines.some(pred) ? resolve() : waiters.push(check));
          check();
        }),
        'an NDJSON line',
      ),
  };
}

/** Plays the captured client commands, each with `requestId` + suffix (and `edit` applied), awaiting each terminal response. */
export async function conversation(socketPath: string, suffix: string, edit: (command: Json) => Json = (c) => c): Promise<Json[]> {
  const client = await connect(socketPath);
  for (const { command } of capturedNdjsonConversation()) {
    const requestId = `${String(command.requestId)}${suffix}`;
    client.socket.write(JSON.stringify(edit({ ...command, requestId })) + '\n');
    await client.waitFor((l) => l.kind === 'response' && l.requestId === requestId);
  }
  client.socket.end();
  await client.closed;
  return client.lines;
}
