/**
 * A client's answer to a request the server made (MCP's `roots/list`) and the client's own next
 * request are not ordered by the protocol: the client may send either first. A replay of a
 * recording made in one order must serve a client that sends them in the other, and still hold the
 * client's own messages to their recorded order. The order is driven here by a raw client that waits
 * for each answer before it sends the next line, so each run takes the same path.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fixturesAfterEach } from '../support/fixtures-after-each.js';
import { tempDir } from '../support/temp-dir.js';
import { recordStdio, replayStdioProcess, type LineProcess } from './stdio-helpers.js';

const { scratch } = fixturesAfterEach();
const ROOTS_SERVER = fileURLToPath(new URL('../support/stdio-mcp-roots-server.mjs', import.meta.url));

type Json = Record<string, unknown>;
type Order = 'answer-first' | 'call-first';

/**
 * The first stdout message that `test` accepts, once it has arrived. A replay that reports a miss
 * first fails the wait at once: a missed answer gets no reply, and would leave it waiting.
 */
async function message(proc: LineProcess, test: (m: Json) => boolean, missExpected = false): Promise<Json> {
  const seen = () => proc.lines().map((l) => JSON.parse(l) as Json).find(test);
  const arrived = (async () => {
    for (let n = 1; ; n++) {
      await proc.waitForLines(n);
      const found = seen();
      if (found) return found;
    }
  })();
  // A process that ended has written all it will: what has not come will not.
  const exited = proc.exited.then(({ code }) => seen() ?? Promise.reject(new Error(`exited (${code}) first: ${proc.stderr()}`)));
  if (missExpected) return Promise.race([arrived, exited]);
  const missed = proc.waitForStderr(/replay miss/).then(() => {
    throw new Error(`the replay missed: ${proc.stderr()}`);
  });
  return Promise.race([arrived, missed, exited]);
}

const send = (proc: LineProcess, value: Json) => proc.send(`${JSON.stringify({ jsonrpc: '2.0', ...value })}\n`);

/** initialize, initialized, then the roots answer and a tool call in `order`, each awaited; the client's own ids start at `base`. */
async function session(proc: LineProcess, order: Order, base: number): Promise<{ result: Json; rootsAsked: Json }> {
  send(proc, { id: base, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'raw', version: '1.0.0' } } });
  await message(proc, (m) => m.id === base && 'result' in m);
  send(proc, { method: 'notifications/initialized' });
  const rootsAsked = await message(proc, (m) => m.method === 'roots/list');
  const answer = async () => {
    send(proc, { id: rootsAsked.id, result: { roots: [{ uri: 'file:///work', name: 'work' }] } });
    // The server took the answer: it says so with a notification.
    await message(proc, (m) => m.method === 'notifications/tools/list_changed');
  };
  const call = async () => {
    send(proc, { id: base + 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    return message(proc, (m) => m.id === base + 1);
  };
  let result: Json;
  if (order === 'answer-first') {
    await answer();
    result = await call();
  } else {
    result = await call();
    await answer();
  }
  proc.child.stdin.end();
  return { result, rootsAsked };
}

// Each order's session is recorded once per file (a recorder and the server are ~0.9 s of CPU), by the
// first test that asks; each test replays a copy of its own.
const recorded = tempDir('agent-proxy-answer-order-');
afterAll(() => recorded.cleanup());
const sessions = new Map<Order, Promise<string>>();

async function record(order: Order): Promise<string> {
  const out = recorded.file(`${order}.db`);
  const recorder = recordStdio(out, ROOTS_SERVER);
  const { result } = await session(recorder, order, 1);
  expect(result).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'echo: hi' }] } });
  expect((await recorder.exited).code, recorder.stderr()).toBe(0);
  return out;
}

/** A copy, in this test's folder, of the session recorded in `order`. */
async function recordIn(order: Order): Promise<string> {
  if (!sessions.has(order)) sessions.set(order, record(order));
  const out = scratch().file(`${order}.db`);
  copyFileSync(await sessions.get(order)!, out);
  return out;
}

describe('replay --stdio of MCP: a client answer and its own next request, in either order', () => {
  for (const [recorded, live] of [
    ['answer-first', 'call-first'],
    ['call-first', 'answer-first'],
  ] as const) {
    it(`serves a client that sends them ${live} from a recording made ${recorded}`, async () => {
      const rec = await recordIn(recorded);
      const replay = replayStdioProcess(rec, ['--strict']);
      const { result, rootsAsked } = await session(replay, live, 10);
      expect(rootsAsked).toMatchObject({ method: 'roots/list' });
      // The tool's recorded result, under the live request's id: not a miss.
      expect(result).toEqual({ jsonrpc: '2.0', id: 11, result: { content: [{ type: 'text', text: 'echo: hi' }] } });
      expect((await replay.exited).code, replay.stderr()).toBe(0);
      expect(replay.stderr()).toMatch(/0 misses, 0 recorded client lines unused/);
    });
  }

  it("still holds the client's own messages to their recorded order", async () => {
    const rec = await recordIn('answer-first');
    const replay = replayStdioProcess(rec, ['--strict']);
    send(replay, { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'raw', version: '1.0.0' } } });
    await message(replay, (m) => m.id === 1 && 'result' in m);
    // The tool call before notifications/initialized: the recording has the notification there.
    send(replay, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
    const refused = await message(replay, (m) => m.id === 2, true);
    expect(refused).toMatchObject({ error: { code: -32600 } });
    expect(JSON.stringify(refused)).toContain('notifications/initialized');
    replay.child.stdin.end();
    expect((await replay.exited).code).toBe(1);
    expect(replay.stderr()).toMatch(/1 miss, 3 recorded client lines unused/);
  });
});
