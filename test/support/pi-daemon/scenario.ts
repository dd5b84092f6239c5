/**
 * What the Pi daemon stand-in says, written by us: a daemon running one session `agent-a` on the
 * loopback mock model (test/support/mock-openai.ts), with a tool-call turn (the model reads
 * hello.txt) and a text-only turn. The shapes follow the project schema's $defs and the daemon's
 * documented behaviour (docs/pi-daemon-notes in the reference material); nothing is read from disk,
 * so the stand-in works in any checkout.
 */
import { MOCK_HELLO, MOCK_MODEL } from '../mock-openai.js';

type Json = Record<string, unknown>;

export interface PiScenario {
  /** `data` of the capabilities envelope. */
  capabilities: Json;
  /** The seeded session resource (agent-a). */
  session: Json;
  /** The body that created agent-a (sessionCreateRequest), including spec.env. */
  createRequest: Json;
  /** The attach_ready frame a framed controller gets (its snapshot is the template of later ones). */
  attachReady: Json;
  /** `get_state` response data (= attach_ready snapshot.rpcState). */
  rpcState: Json;
  /** `get_entries` response data after the tool-call turn. */
  entries: Json;
  /** Raw Pi events of the tool-call turn (27 events). */
  toolTurnEvents: Json[];
  /** The user text of the tool-call turn, replaced by the live prompt's message. */
  toolTurnUserText: string;
  /** Raw Pi events of the text-only turn (16 events). */
  textTurnEvents: Json[];
  textTurnUserText: string;
  /** ACP initialize result. */
  acpInitialize: Json;
  /** ACP session/new and session/load result (modes + configOptions). */
  acpLoadResult: Json;
  /** ACP session/update params that session/load replays (the history of both turns). */
  acpLoadHistory: Json[];
  /** ACP session/update params of the text turn (available_commands_update, then the reply in chunks). */
  acpTextTurn: Json[];
  /** ACP session/update params of the tool-call turn. */
  acpToolTurn: Json[];
}

const SESSION_ID = 'agent-a';
const PROVIDER = 'mock';
const TOOL_CALL_ID = 'call_read_1';
const FILE_TEXT = 'hello\n';
const TOOL_REPLY = ['The ', 'file ', 'says ', 'hello.'];
const TEXT_REPLY = ['Hello ', 'from ', 'the ', 'mock ', 'model.'];
const START = Date.parse('2026-01-15T09:00:00.000Z');
const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const COMMAND_TYPES = [
  'prompt', 'steer', 'follow_up', 'abort', 'new_session', 'get_state', 'set_model', 'cycle_model', 'get_available_models',
  'set_thinking_level', 'cycle_thinking_level', 'get_available_thinking_levels', 'set_steering_mode', 'set_follow_up_mode',
  'compact', 'set_auto_compaction', 'set_auto_retry', 'abort_retry', 'bash', 'abort_bash', 'get_session_stats', 'export_html',
  'switch_session', 'fork', 'clone', 'get_fork_messages', 'get_entries', 'get_tree', 'get_last_assistant_text',
  'set_session_name', 'get_messages', 'get_commands',
];

const iso = (offsetMs: number) => new Date(START + offsetMs).toISOString();
const text = (t: string) => ({ type: 'text', text: t });
const capitalised = (s: string) => s[0]!.toUpperCase() + s.slice(1);

function spec(name: string): Json {
  return {
    cwd: '/srv/work/project-a',
    target: { mode: 'new' },
    name,
    model: { provider: PROVIDER, id: MOCK_MODEL, thinkingLevel: 'off' },
    tools: { mode: 'default' },
    resources: { noExtensions: true, noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true, systemPrompt: 'You are a test agent.', projectTrust: 'deny' },
    settings: { retry: { enabled: false, maxRetries: 0 } },
    isolation: { mode: 'unisolated' },
  };
}

function sessionResource(name: string, generation: number, revision: number): Json {
  return {
    sessionId: SESSION_ID,
    name,
    generation,
    revision,
    residency: 'resident',
    state: 'idle',
    createdAt: iso(0),
    updatedAt: iso(revision),
    lastUsedAt: iso(0),
    spec: spec(name),
    environment: { keys: ['FIXTURE_ENV'], persistence: 'memory-only', provisioned: true, digest: `sha256:${'5e'.repeat(32)}` },
    links: { self: `/v1/session/${SESSION_ID}`, rpc: `/v1/session/${SESSION_ID}/rpc`, apc: `/v1/session/${SESSION_ID}/apc` },
  };
}

function capabilities(): Json {
  return {
    apiVersion: '1.0',
    transports: ['unix-ndjson', 'http', 'websocket'],
    rpcSubprotocols: ['pi-rpc.v1', 'pi-daemon-rpc.v1'],
    rpc: {
      subprotocols: ['pi-rpc.v1', 'pi-daemon-rpc.v1'],
      host: { sdkVersion: '0.82.1', commandTypes: COMMAND_TYPES, rawSessionEvents: true, extensionUi: true, processTransportOwned: false, policyGatedCommands: ['bash', 'abort_bash', 'export_html'] },
      limits: {
        maxHubs: 16, maxReplayEvents: 512, maxReplayBytes: 1 << 21, maxTotalReplayBytes: 1 << 25, maxMessageBytes: 1 << 20,
        maxOutboundBytesPerConnection: 1 << 22, maxInFlightCommandsPerConnection: 8, keepAliveMs: 30_000, residencyLeaseTtlMs: 60_000,
      },
      roles: ['controller', 'observer'],
      replay: true,
    },
    acp: {
      protocol: 'ACP',
      protocolVersion: 1,
      sdkVersion: '1.2.0',
      websocketSubprotocol: 'agent-client-protocol.v1',
      upstreamAdapter: { name: 'pi-acp', auditCommit: '0'.repeat(40), license: 'MIT' },
      inProcess: true,
      limits: { maxHubs: 16, maxConnectionsPerHub: 8, maxMessageBytes: 1 << 20, maxOutboundBytesPerConnection: 1 << 22, keepAliveMs: 30_000, maxListSessions: 100 },
    },
    isolationModes: ['unisolated'],
    authentication: 'service-bearer',
    host: { ready: true, draining: false },
    // The schedule and dashboard capabilities are third-party schemas; this daemon has neither.
    schedules: { available: false },
    blobTransfers: {
      contractVersion: '1.0', opaqueContent: true, contentAddressedSha256: true, untrustedMetadata: true, cwdMaterialization: false, quarantine: true,
      limits: {
        maxBlobs: 64, maxBlobsPerSession: 16, maxBlobBytes: 1 << 24, maxTotalBytes: 1 << 27, maxReferences: 128, maxReferencesPerBlob: 8,
        maxNameBytes: 512, maxMediaTypeBytes: 255, maxRecordBytes: 65_536, maxRecoveryBytes: 1 << 24, reservationTtlMs: 3_600_000,
        blobTtlMs: 86_400_000, referenceTtlMs: 86_400_000,
      },
    },
  };
}

const ZERO_COST = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

function assistant(content: Json[], usage: { input: number; output: number }, stopReason: string, at: number, responseId: string): Json {
  const totals = usage.input + usage.output > 0 ? { ...usage, cacheRead: 0, cacheWrite: 0, reasoning: 0, totalTokens: usage.input + usage.output } : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
  return { role: 'assistant', content, api: 'openai-completions', provider: PROVIDER, model: MOCK_MODEL, usage: { ...totals, cost: ZERO_COST }, stopReason, timestamp: at, responseId };
}

/** One model reply streamed as text: message_start, text_start, a text_delta per piece, text_end, message_end (pieces + 4 events). */
function textReply(pieces: string[], at: number, responseId: string): { events: Json[]; final: Json } {
  const full = pieces.join('');
  const final = assistant([text(full)], { input: 12, output: pieces.length }, 'stop', at, responseId);
  const partial = (sofar: string) => assistant([text(sofar)], { input: 0, output: 0 }, 'stop', at, responseId);
  const events: Json[] = [{ type: 'message_start', message: assistant([], { input: 0, output: 0 }, 'stop', at, responseId) }];
  events.push({ type: 'message_update', assistantMessageEvent: { type: 'text_start', contentIndex: 0, partial: partial(pieces[0]!) } });
  let sofar = '';
  for (const delta of pieces) {
    sofar += delta;
    events.push({ type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta, partial: partial(sofar) } });
  }
  events.push({ type: 'message_update', assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: full, partial: final } });
  events.push({ type: 'message_end', message: final });
  return { events, final };
}

const userMessage = (t: string, at: number) => ({ role: 'user', content: [text(t)], timestamp: at });

/** agent_start, turn_start, the user message, the reply, turn_end, agent_end, agent_settled: 16 events for 5 pieces. */
function textTurn(userText: string): Json[] {
  const at = START + 10_000;
  const user = userMessage(userText, at);
  const reply = textReply(TEXT_REPLY, at + 5, 'chatcmpl-text-1');
  return [
    { type: 'agent_start' },
    { type: 'turn_start' },
    { type: 'message_start', message: user },
    { type: 'message_end', message: user },
    ...reply.events,
    { type: 'turn_end', message: reply.final, toolResults: [] },
    { type: 'agent_end', messages: [user, reply.final], willRetry: false },
    { type: 'agent_settled' },
  ];
}

/** The model calls `read` on hello.txt, gets its text, then answers in 4 pieces: 27 events. */
function toolTurn(userText: string): Json[] {
  const at = START + 5_000;
  const user = userMessage(userText, at);
  const args = { path: 'hello.txt' };
  const argsText = JSON.stringify(args);
  const call = (partialArgs: string, parsed: Json) => ({ type: 'toolCall', id: TOOL_CALL_ID, name: 'read', arguments: parsed, partialArgs, streamIndex: 0 });
  const partial = (c: Json) => assistant([c], { input: 0, output: 0 }, 'stop', at + 5, 'chatcmpl-tool-1');
  const callMessage = assistant([{ type: 'toolCall', id: TOOL_CALL_ID, name: 'read', arguments: args }], { input: 20, output: 5 }, 'toolUse', at + 5, 'chatcmpl-tool-1');
  const toolResult = { role: 'toolResult', toolCallId: TOOL_CALL_ID, toolName: 'read', content: [text(FILE_TEXT)], isError: false, timestamp: at + 100 };
  const reply = textReply(TOOL_REPLY, at + 105, 'chatcmpl-tool-2');
  return [
    { type: 'agent_start' },
    { type: 'turn_start' },
    { type: 'message_start', message: user },
    { type: 'message_end', message: user },
    { type: 'message_start', message: assistant([], { input: 0, output: 0 }, 'stop', at + 5, 'chatcmpl-tool-1') },
    { type: 'message_update', assistantMessageEvent: { type: 'toolcall_start', contentIndex: 0, partial: partial(call('', {})) } },
    { type: 'message_update', assistantMessageEvent: { type: 'toolcall_delta', contentIndex: 0, delta: '', partial: partial(call('', {})) } },
    { type: 'message_update', assistantMessageEvent: { type: 'toolcall_delta', contentIndex: 0, delta: argsText, partial: partial(call(argsText, args)) } },
    { type: 'message_update', assistantMessageEvent: { type: 'toolcall_end', contentIndex: 0, toolCall: { type: 'toolCall', id: TOOL_CALL_ID, name: 'read', arguments: args }, partial: callMessage } },
    { type: 'message_end', message: callMessage },
    { type: 'tool_execution_start', toolCallId: TOOL_CALL_ID, toolName: 'read', args },
    { type: 'tool_execution_end', toolCallId: TOOL_CALL_ID, toolName: 'read', result: { content: [text(FILE_TEXT)] }, isError: false },
    { type: 'message_start', message: toolResult },
    { type: 'message_end', message: toolResult },
    { type: 'turn_end', message: callMessage, toolResults: [toolResult] },
    { type: 'turn_start' },
    ...reply.events,
    { type: 'turn_end', message: reply.final, toolResults: [] },
    { type: 'agent_end', messages: [user, callMessage, toolResult, reply.final], willRetry: false },
    { type: 'agent_settled' },
  ];
}

function rpcState(): Json {
  return {
    model: {
      id: MOCK_MODEL, name: 'Mock Model', api: 'openai-completions', provider: PROVIDER, baseUrl: 'http://127.0.0.1:9/v1', reasoning: false, input: ['text'],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 16_384, maxTokens: 1024,
      compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    },
    thinkingLevel: 'off',
    isStreaming: false,
    isCompacting: false,
    steeringMode: 'one-at-a-time',
    followUpMode: 'one-at-a-time',
    sessionFile: `/srv/pi-daemon/state/sessions/${SESSION_ID}/pi/session.jsonl`,
    sessionId: '00000000-0000-4000-8000-0000000000a1',
    autoCompactionEnabled: true,
    messageCount: 0,
    pendingMessageCount: 0,
  };
}

/** The session's entries after the tool-call turn: a chain of ids, each the parent of the next. */
function entries(toolUserText: string): Json {
  const turn = toolTurn(toolUserText);
  const messages = (turn.at(-2)!.messages as Json[]);
  const list: Json[] = [
    { type: 'model_change', id: 'e0000001', parentId: null, timestamp: iso(1), provider: PROVIDER, modelId: MOCK_MODEL },
    { type: 'thinking_level_change', id: 'e0000002', parentId: 'e0000001', timestamp: iso(1), thinkingLevel: 'off' },
  ];
  messages.forEach((message, i) => list.push({ type: 'message', id: `e000001${i}`, parentId: list.at(-1)!.id, timestamp: iso(5_000 + i), message }));
  return { entries: list, leafId: list.at(-1)!.id };
}

function acpTextUpdates(pieces: string[]): Json[] {
  return pieces.map((t) => ({ sessionId: SESSION_ID, update: { sessionUpdate: 'agent_message_chunk', content: text(t) } }));
}

function acpScenario(toolUserText: string, textUserText: string): Pick<PiScenario, 'acpInitialize' | 'acpLoadResult' | 'acpLoadHistory' | 'acpTextTurn' | 'acpToolTurn'> {
  const levels = THINKING_LEVELS.map((id) => ({ id, name: capitalised(id) }));
  const chunk = (sessionUpdate: string, t: string) => ({ sessionId: SESSION_ID, update: { sessionUpdate, content: text(t) } });
  const commands = [
    { name: 'compact', description: 'Compact the session context now' },
    { name: 'session', description: 'Show session statistics' },
    { name: 'name', description: 'Rename the session', input: { hint: '<name>' } },
  ];
  return {
    acpInitialize: {
      protocolVersion: 1,
      agentInfo: { name: 'pi-daemon-acp', title: 'Pi daemon ACP adapter (stand-in)', version: '0.3.0' },
      authMethods: [],
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: false },
        mcpCapabilities: { http: false, sse: false },
        sessionCapabilities: { list: {}, close: {} },
      },
    },
    acpLoadResult: {
      modes: { currentModeId: 'off', availableModes: levels },
      configOptions: [
        { type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: `${PROVIDER}/${MOCK_MODEL}`, options: [{ value: `${PROVIDER}/${MOCK_MODEL}`, name: 'Mock Model' }] },
        { type: 'select', id: 'thought_level', name: 'Thinking level', category: 'thought_level', currentValue: 'off', options: levels.map(({ id, name }) => ({ value: id, name })) },
      ],
    },
    acpLoadHistory: [
      chunk('user_message_chunk', toolUserText),
      chunk('agent_message_chunk', FILE_TEXT),
      chunk('agent_message_chunk', TOOL_REPLY.join('')),
      chunk('user_message_chunk', textUserText),
      chunk('agent_message_chunk', MOCK_HELLO),
    ],
    acpTextTurn: [{ sessionId: SESSION_ID, update: { sessionUpdate: 'available_commands_update', availableCommands: commands } }, ...acpTextUpdates(TEXT_REPLY)],
    acpToolTurn: [
      {
        sessionId: SESSION_ID,
        update: { sessionUpdate: 'tool_call', toolCallId: TOOL_CALL_ID, title: 'read', kind: 'read', status: 'in_progress', rawInput: { path: 'hello.txt' }, locations: [{ path: '/srv/work/project-a/hello.txt' }] },
      },
      {
        sessionId: SESSION_ID,
        update: { sessionUpdate: 'tool_call_update', toolCallId: TOOL_CALL_ID, status: 'completed', content: [{ type: 'content', content: text(FILE_TEXT) }], rawOutput: { content: [text(FILE_TEXT)] } },
      },
      ...acpTextUpdates(TOOL_REPLY),
    ],
  };
}

let built: PiScenario | undefined;

/** A fresh copy of the scenario (callers may change what they get). */
export function piScenario(): PiScenario {
  built ??= build();
  return structuredClone(built);
}

function build(): PiScenario {
  const toolTurnUserText = 'READFILE please read hello.txt';
  const textTurnUserText = 'Say hello';
  const state = rpcState();
  const renamed = sessionResource('fixture-agent-renamed', 2, 3);
  return {
    capabilities: capabilities(),
    session: sessionResource('fixture-agent', 1, 1),
    createRequest: { requestId: 'req-create-1', sessionId: SESSION_ID, spec: { ...spec('fixture-agent'), env: { FIXTURE_ENV: 'not-a-secret' } } },
    attachReady: {
      kind: 'attach_ready',
      connectionId: '00000000-0000-4000-8000-0000000000c1',
      role: 'controller',
      hostInstanceId: '00000000-0000-4000-8000-0000000000d1',
      sessionId: SESSION_ID,
      generation: 2,
      highWaterCursor: 'cursor-0',
      snapshot: {
        session: renamed,
        requestState: { sessionId: SESSION_ID, generation: 2, state: 'idle', sequence: 1, queuedTurns: 0, lastUsedAt: iso(200), idleForMs: 0, model: { provider: PROVIDER, id: MOCK_MODEL } },
        rpcState: state,
        leafId: 'e0000002',
      },
    },
    rpcState: state,
    entries: entries(toolTurnUserText),
    toolTurnEvents: toolTurn(toolTurnUserText),
    toolTurnUserText,
    textTurnEvents: textTurn(textTurnUserText),
    textTurnUserText,
    ...acpScenario(toolTurnUserText, textTurnUserText),
  };
}
