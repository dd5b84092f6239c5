/**
 * Two recordings of the same scripted run must diff equal, whatever the run generated afresh:
 * uuids and timestamps inside strings, ids whose first appearance is not in an id field, streamed
 * partial snapshots (under --semantic) and messages racing across directions (under --semantic).
 * And a real change must still be found and named. Recordings are written by the test.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diffRecordingFiles } from '../../src/diff/diff-recordings.js';
import type { DiffReport } from '../../src/diff/diff-report.js';
import { useCleanups } from './diff-helpers.js';
import { writeNdjsonRecording, type HandExchange, type HandMessage } from '../support/ndjson-recording.js';

useCleanups();

const hex8 = () => randomBytes(4).toString('hex');
const stamp = () => new Date(Date.UTC(2026, 11, 1, 19, Math.floor(Math.random() * 60), Math.floor(Math.random() * 60), Math.floor(Math.random() * 1000))).toISOString();
const fileSafe = (iso: string) => iso.replace(/[:.]/g, '-');

/** Every pointer reported, as `exchange#seq label pointer`. */
function places(report: DiffReport): string[] {
  return report.exchanges.flatMap((e) =>
    e.messages.flatMap((m) => {
      const ref = m.b ?? m.a!;
      const where = `${e.b?.id ?? e.a?.id}#${ref.seq} ${m.change} ${ref.label}`;
      return m.differences.length === 0 ? [where] : m.differences.map((d) => `${where} ${d.pointer}`);
    }),
  );
}

describe('proxy diff: volatile tokens inside strings', () => {
  /** A session resource whose file name is built from a timestamp and a uuid, and a log line naming the uuid. */
  const session = (uuid: string, echoed = uuid): HandExchange => ({
    transport: 'http',
    protocol: 'pi-rest',
    path: '/v1/session/s1',
    status: 200,
    messages: [{ sender: 'server', json: { ok: true, data: { name: 's1', sessionFile: `/srv/pi/${fileSafe(stamp())}_${uuid}.jsonl`, log: `opened ${echoed} at ${stamp()}` } } }],
  });

  it('a path built from a fresh timestamp and uuid is equal across runs; a uuid that no longer matches is found', () => {
    const a = writeNdjsonRecording([session(randomUUID())]);
    const b = writeNdjsonRecording([session(randomUUID())]);
    expect(diffRecordingFiles(a, b).equal).toBe(true);

    const broken = writeNdjsonRecording([session(randomUUID(), randomUUID())]);
    const report = diffRecordingFiles(a, broken);
    expect(report.equal).toBe(false);
    expect(places(report)).toEqual(['1#1 changed response /data/log']);
    expect(report.exchanges[0].messages[0].differences[0]).toMatchObject({ a: 'opened {uuid#1} at {timestamp#2}', b: 'opened {uuid#2} at {timestamp#2}' });
  });
});

describe('proxy diff: volatile tokens in exchange fields', () => {
  /** A download of a file named after a timestamp, with the run's uuid in a header, the query and the close reason. */
  const download = (uuid: string, at: string, closedUuid = uuid): HandExchange => ({
    transport: 'ws',
    protocol: 'pi-rest',
    path: `/v1/logs/${fileSafe(at)}.jsonl`,
    query: `since=${encodeURIComponent(at)}`,
    responseHeaders: { 'X-Trace': `trace ${uuid}` },
    closeReason: `session ${closedUuid} closed`,
    messages: [{ sender: 'server', json: { ok: true } }],
  });

  it('headers, path segments, query values and close reasons are equal across runs and aligned as one exchange', () => {
    const a = writeNdjsonRecording([download(randomUUID(), stamp())]);
    const report = diffRecordingFiles(a, writeNdjsonRecording([download(randomUUID(), stamp())]));
    expect(report.exchanges, JSON.stringify(report.exchanges, null, 1)).toEqual([]);
    const uuid = randomUUID();
    const broken = diffRecordingFiles(writeNdjsonRecording([download(uuid, stamp())]), writeNdjsonRecording([download(uuid, stamp(), randomUUID())]));
    expect(broken.summary.exchanges).toMatchObject({ changed: 1, added: 0, removed: 0 });
    // The header names the uuid first; the close reason naming another is the difference.
    expect(broken.exchanges[0].fields).toEqual([{ pointer: '/closeReason', a: 'session {uuid#1} closed', b: 'session {uuid#2} closed' }]);
  });
});

describe('proxy diff: ids by their role across the whole recording', () => {
  /**
   * A Pi-like run: a REST call whose answer names the last entry in a plain field, then a framed
   * RPC get_entries whose tree (root → child → leaf, and a leaf off the branch) lists each entry's
   * `id` before any `parentId` names it.
   */
  const run = (ids: { root: string; child: string; leaf: string; off: string }, childParent = ids.root, name = 's1'): string =>
    writeNdjsonRecording([
      {
        transport: 'http',
        protocol: 'pi-rest',
        path: '/v1/session/s1',
        status: 200,
        messages: [{ sender: 'server', json: { ok: true, data: { name, lastEntry: ids.leaf } } }],
      },
      {
        protocol: 'pi-daemon-rpc',
        subprotocol: 'pi-daemon-rpc.v1',
        messages: [
          { sender: 'client', json: { kind: 'command', command: { id: 'fr-1', type: 'get_entries' } } },
          {
            sender: 'server',
            json: {
              kind: 'response',
              response: {
                id: 'fr-1',
                type: 'response',
                command: 'get_entries',
                success: true,
                data: {
                  entries: [
                    { type: 'model_change', id: ids.root, parentId: null },
                    { type: 'message', id: ids.child, parentId: childParent },
                    { type: 'message', id: ids.leaf, parentId: ids.child },
                    { type: 'message', id: ids.off, parentId: ids.root },
                  ],
                  leafId: ids.leaf,
                },
              },
            },
          },
        ],
      },
    ]);
  const fresh = () => ({ root: hex8(), child: hex8(), leaf: hex8(), off: hex8() });

  it('entry ids are equal across runs, though each appears before the parentId or leafId naming it', () => {
    const report = diffRecordingFiles(run(fresh()), run(fresh()));
    expect(report.exchanges, JSON.stringify(report.exchanges, null, 1)).toEqual([]);
  });

  it('an exchange loaded again for the report labels an id in a plain field as the scan did', () => {
    const b = fresh();
    const report = diffRecordingFiles(run(fresh()), run(b, b.root, 's2'));
    expect(report.exchanges[0].messages[0].differences).toEqual([{ pointer: '/data/name', a: 's1', b: 's2' }]);
  });

  it('a parentId that points at another entry is still found', () => {
    const ids = fresh();
    const report = diffRecordingFiles(run(ids), run({ ...fresh() }, 'wrong-parent'));
    expect(report.equal).toBe(false);
    expect(places(report)).toContain('2#2 changed response:response /response/data/entries/1/parentId');
    const moved = fresh();
    const reparented = diffRecordingFiles(run(ids), run(moved, moved.off));
    // The entry off the branch is now named first (by the child's parentId), so its own id is numbered differently too.
    expect(places(reparented)).toEqual(['2#2 changed response:response /response/data/entries/1/parentId', '2#2 changed response:response /response/data/entries/3/id']);
  });
});

/** Pi RPC events of one prompt: a streamed assistant message (partial snapshots as given) and a tool execution. */
function piTurn(partials: string[], final = 'Hello world', toolText = 'MARKER-42'): HandMessage[] {
  const deltas = ['Hel', 'lo wor', 'ld'];
  const text = (t: string) => ({ role: 'assistant', content: [{ type: 'text', text: t }] });
  return [
    { sender: 'client', json: { id: 'p1', type: 'prompt', message: 'hi' } },
    { sender: 'server', json: { id: 'p1', type: 'response', command: 'prompt', success: true } },
    { sender: 'server', json: { type: 'message_start', message: text('') } },
    ...deltas.map((delta, i): HandMessage => ({
      sender: 'server',
      json: { type: 'message_update', message: text(partials[i]), assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta, partial: text(partials[i]) } },
    })),
    { sender: 'server', json: { type: 'message_end', message: text(final) } },
    { sender: 'server', json: { type: 'tool_execution_start', toolCallId: 'call_1', toolName: 'read', args: { path: 'README.txt' } } },
    { sender: 'server', json: { type: 'tool_execution_update', toolCallId: 'call_1', toolName: 'read', partialResult: { content: [{ type: 'text', text: toolText.slice(0, partials.length) }] } } },
    { sender: 'server', json: { type: 'tool_execution_end', toolCallId: 'call_1', toolName: 'read', result: { content: [{ type: 'text', text: toolText }] }, isError: false } },
  ];
}

describe('proxy diff --semantic: streamed partials fold into the message they build up', () => {
  const EARLY = ['Hel', 'Hello wor', 'Hello world'];
  const LATE = ['Hello wor', 'Hello world', 'Hello world'];
  const rec = (messages: HandMessage[], transport: 'ws' | 'stdio' = 'ws') => writeNdjsonRecording([{ transport, protocol: 'pi-rpc', subprotocol: transport === 'ws' ? 'pi-rpc.v1' : undefined, messages }]);

  it('partial snapshots caught at other moments: the raw diff shows only them, --semantic is equal', () => {
    const a = rec(piTurn(EARLY));
    const b = rec(piTurn(LATE));
    const raw = diffRecordingFiles(a, b);
    expect(raw.equal).toBe(false);
    expect(new Set(raw.exchanges.flatMap((e) => e.messages.map((m) => m.a?.label)))).toEqual(new Set(['message_update']));
    expect(diffRecordingFiles(a, b, { semantic: true }).equal).toBe(true);
  });

  it('over stdio as well', () => {
    expect(diffRecordingFiles(rec(piTurn(EARLY), 'stdio'), rec(piTurn(LATE), 'stdio'), { semantic: true }).equal).toBe(true);
  });

  it('on the daemon socket as well, where the events are {kind:"event", event:"messageUpdate", data}', () => {
    /** The same turn as daemon socket events (numbered by `sequence`), after the wake request. */
    const socket = (partials: string[], final = 'Hello world') =>
      writeNdjsonRecording([
        {
          transport: 'ndjson',
          protocol: 'unix-ndjson',
          messages: piTurn(partials, final).flatMap((m, i): HandMessage[] => {
            if (m.sender === 'client') return [{ sender: 'client', json: { protocolVersion: '1.0', requestId: 'w1', operation: 'wake', sessionId: 's1', generation: 1, payload: { prompt: 'hi' } } }];
            const { type, ...data } = m.json as { type: string };
            if (type === 'response') return [];
            const event = type.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
            return [{ sender: 'server', json: { protocolVersion: '1.0', kind: 'event', event, sessionId: 's1', generation: 1, sequence: i, requestId: 'w1', data } }];
          }),
        },
      ]);
    const a = socket(EARLY);
    expect(diffRecordingFiles(a, socket(LATE)).equal).toBe(false);
    expect(diffRecordingFiles(a, socket(LATE), { semantic: true }).equal).toBe(true);
    expect(places(diffRecordingFiles(a, socket(LATE, 'Hello word'), { semantic: true }))).toEqual(['1#6 changed event /data/message/content/0/text']);
  });

  it('one changed token in the final assistant text or in a tool result is found and named', () => {
    const a = rec(piTurn(EARLY));
    const text = diffRecordingFiles(a, rec(piTurn(LATE, 'Hello word')), { semantic: true });
    expect(text.equal).toBe(false);
    expect(places(text)).toEqual(['1#7 changed message_end /message/content/0/text']);
    expect(text.exchanges[0].messages[0].differences[0]).toMatchObject({ a: 'Hello world', b: 'Hello word' });

    const tool = diffRecordingFiles(a, rec(piTurn(LATE, 'Hello world', 'MARKER-43')), { semantic: true });
    expect(places(tool)).toEqual(['1#10 changed tool_execution_end /result/content/0/text', '1#10 changed pi-session /toolExecutions/0/result/content/0/text']);
  });

  it('a changed delta is found in the text the partials build up', () => {
    const changed = piTurn(EARLY);
    (changed[4].json as { assistantMessageEvent: { delta: string } }).assistantMessageEvent.delta = 'lo WOR';
    const report = diffRecordingFiles(rec(piTurn(EARLY)), rec(changed), { semantic: true });
    expect(places(report)).toEqual(['1#10 changed pi-session /assistantText/0']);
  });
});

describe('proxy diff --semantic: a different number of partials does not shift the daemon\'s event counters', () => {
  /** One turn on the daemon's WebSocket RPC: each Pi event framed with the session-wide `sequence` counter. */
  const framed = (deltas: string[], final = 'Hello world') => {
    const text = (t: string) => ({ role: 'assistant', content: [{ type: 'text', text: t }] });
    let built = '';
    const events: unknown[] = [
      { type: 'message_start', message: text('') },
      ...deltas.map((delta) => {
        built += delta;
        return { type: 'message_update', message: text(built), assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta, partial: text(built) } };
      }),
      { type: 'message_end', message: text(final) },
      { type: 'agent_end', messages: [] },
    ];
    return writeNdjsonRecording([
      {
        transport: 'ws',
        protocol: 'pi-daemon-rpc',
        path: '/v1/session/s1/rpc',
        subprotocol: 'pi-daemon-rpc.v1',
        messages: [
          { sender: 'client', json: { kind: 'command', command: { id: 'p1', type: 'prompt', message: 'hi' } } },
          ...events.map((event, i): HandMessage => ({ sender: 'server', json: { kind: 'event', sequence: i + 1, event } })),
        ],
      },
    ]);
  };

  it('streamed in three deltas or in four: raw differs, --semantic is equal; a changed final text is still found', () => {
    const a = framed(['Hel', 'lo wor', 'ld']);
    const b = framed(['Hel', 'lo', ' wor', 'ld']);
    expect(diffRecordingFiles(a, b).equal).toBe(false);
    expect(diffRecordingFiles(a, b, { semantic: true }).equal).toBe(true);
    expect(places(diffRecordingFiles(a, framed(['Hel', 'lo', ' wor', 'ld'], 'Hello word'), { semantic: true }))).toEqual(['1#7 changed event:message_end /event/message/content/0/text']);
  });
});

describe('proxy diff --semantic: ACP message chunks fold into the text they build up', () => {
  const chunk = (text: string, sessionUpdate = 'agent_message_chunk'): HandMessage => ({
    sender: 'server',
    json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate, content: { type: 'text', text } } } },
  });
  const acp = (chunks: HandMessage[]) =>
    writeNdjsonRecording([
      {
        protocol: 'acp',
        subprotocol: 'agent-client-protocol.v1',
        messages: [
          { sender: 'client', json: { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } } },
          ...chunks,
          { sender: 'server', json: { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } } },
        ],
      },
    ]);

  it('the same text cut into other chunks: raw differs, --semantic is equal', () => {
    const a = acp([chunk('Thinking', 'agent_thought_chunk'), chunk('Hello'), chunk(' from the'), chunk(' mock model.')]);
    const b = acp([chunk('Think', 'agent_thought_chunk'), chunk('ing', 'agent_thought_chunk'), chunk('Hello from'), chunk(' the mock model.')]);
    expect(diffRecordingFiles(a, b).equal).toBe(false);
    const report = diffRecordingFiles(a, b, { semantic: true });
    expect(report.exchanges, JSON.stringify(report.exchanges, null, 1)).toEqual([]);
  });

  it('one changed token, or text moved from the thought to the message, is found and named', () => {
    const a = acp([chunk('Thinking', 'agent_thought_chunk'), chunk('Hello'), chunk(' from the mock model.')]);
    const token = diffRecordingFiles(a, acp([chunk('Thinking', 'agent_thought_chunk'), chunk('Hello from'), chunk(' the mock modal.')]), { semantic: true });
    expect(places(token)).toEqual(['1#4 changed acp-stream /messages/1/content/0/text']);
    const moved = diffRecordingFiles(a, acp([chunk('Thinking', 'agent_thought_chunk'), chunk('Hello', 'agent_thought_chunk'), chunk(' from the mock model.')]), { semantic: true });
    expect(moved.equal).toBe(false);
  });
});

describe('proxy diff --semantic: the order of messages across directions is a race', () => {
  /** ACP: the agent's available_commands_update, sent after session/load, races the client's session/prompt. */
  const acp = (notificationFirst: boolean, commands = ['compact']): string => {
    const notification: HandMessage = {
      sender: 'server',
      json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'available_commands_update', availableCommands: commands.map((name) => ({ name, description: name })) } } },
    };
    const prompt: HandMessage = { sender: 'client', json: { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } } };
    return writeNdjsonRecording([
      {
        protocol: 'acp',
        subprotocol: 'agent-client-protocol.v1',
        messages: [
          { sender: 'client', json: { jsonrpc: '2.0', id: 1, method: 'session/load', params: { sessionId: 's1', cwd: '/w', mcpServers: [] } } },
          { sender: 'server', json: { jsonrpc: '2.0', id: 1, result: {} } },
          ...(notificationFirst ? [notification, prompt] : [prompt, notification]),
          { sender: 'server', json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } } } } },
          { sender: 'server', json: { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } } },
        ],
      },
    ]);
  };

  it('a notification before or after the other side\'s request: raw differs, --semantic is equal', () => {
    const a = acp(false);
    const b = acp(true);
    expect(diffRecordingFiles(a, b).equal).toBe(false);
    const semantic = diffRecordingFiles(a, b, { semantic: true });
    expect(semantic.exchanges, JSON.stringify(semantic.exchanges, null, 1)).toEqual([]);
  });

  it('what the raced notification says is still compared', () => {
    const report = diffRecordingFiles(acp(false), acp(true, ['compact', 'export']), { semantic: true });
    expect(report.equal).toBe(false);
    expect(places(report)[0]).toMatch(/^1#\d changed session\/update \/params\/update\/availableCommands\/1/);
  });

  it('a stdio agent\'s stderr is a stream of its own', () => {
    const log = (text: string): HandMessage => ({ sender: 'server', channel: 'stderr', raw: `${text}\n` });
    const turn = piTurn(['Hel', 'Hello wor', 'Hello world']).map((m) => ({ ...m, channel: m.sender === 'client' ? 'stdin' : 'stdout' }));
    const rec = (messages: HandMessage[]) => writeNdjsonRecording([{ transport: 'stdio', protocol: 'pi-rpc', messages }]);
    const a = rec([log('starting'), ...turn.slice(0, 3), log('model ready'), ...turn.slice(3)]);
    const b = rec([...turn.slice(0, 5), log('starting'), log('model ready'), ...turn.slice(5)]);
    expect(diffRecordingFiles(a, b).equal).toBe(false);
    expect(diffRecordingFiles(a, b, { semantic: true }).equal).toBe(true);
    const swapped = rec([...turn.slice(0, 5), log('model ready'), log('starting'), ...turn.slice(5)]);
    expect(diffRecordingFiles(a, swapped, { semantic: true }).equal).toBe(false);
  });

  it('the order within one direction still counts', () => {
    const a = acp(false);
    const swapped = writeNdjsonRecording([
      {
        protocol: 'acp',
        subprotocol: 'agent-client-protocol.v1',
        messages: [
          { sender: 'client', json: { jsonrpc: '2.0', id: 1, method: 'session/load', params: { sessionId: 's1', cwd: '/w', mcpServers: [] } } },
          { sender: 'server', json: { jsonrpc: '2.0', id: 1, result: {} } },
          { sender: 'client', json: { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } } },
          { sender: 'server', json: { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } } },
          { sender: 'server', json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'compact' }] } } } },
          { sender: 'server', json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } } } } },
        ],
      },
    ]);
    expect(diffRecordingFiles(a, swapped, { semantic: true }).equal).toBe(false);
  });
});
