/**
 * Templates taken from the real pi-daemon v0.3.0 traffic in ../shared/fixtures/pi-daemon/captured,
 * read at run time. The stand-in answers with these bodies (volatile fields replaced) so that
 * everything it sends validates against the project schema's $defs like the capture did.
 */
import { readFileSync } from 'node:fs';

type Json = Record<string, unknown>;

interface HttpRecord {
  kind: 'http';
  label: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: Json };
}

interface WsRecord {
  kind: string;
  conn: string;
  dir?: 'client->server' | 'server->client';
  label?: string;
  data?: Json;
}

export interface PiCaptures {
  /** `data` of the captured capabilitiesEnvelope. */
  capabilities: Json;
  /** The captured session resource (sessionEnvelope data for agent-a before the update). */
  session: Json;
  /** The body of the captured create request (sessionCreateRequest), including spec.env. */
  createRequest: Json;
  /** The first attach_ready frame of the framed controller connection. */
  attachReady: Json;
  /** `get_state` response data (= attach_ready snapshot.rpcState). */
  rpcState: Json;
  /** `get_entries` response data after the tool-call turn. */
  entries: Json;
  /** Raw Pi events of the captured tool-call turn (framed connection, sequence 1..27). */
  toolTurnEvents: Json[];
  /** The user text of the tool-call turn, to be replaced by the prompt's message. */
  toolTurnUserText: string;
  /** Raw Pi events of the captured text-only turn (raw pi-rpc.v1 connection). */
  textTurnEvents: Json[];
  textTurnUserText: string;
  /** ACP initialize result. */
  acpInitialize: Json;
  /** ACP session/load result (modes + configOptions). */
  acpLoadResult: Json;
  /** ACP session/update params replayed by session/load (history). */
  acpLoadHistory: Json[];
  /** ACP session/update params of the text prompt turn (available_commands_update + agent_message_chunk ×5). */
  acpTextTurn: Json[];
  /** ACP session/update params of the tool-call prompt turn. */
  acpToolTurn: Json[];
}

const CAPTURED = '../../../../shared/fixtures/pi-daemon/captured/';

function readCapture(name: string): { records: unknown[] } {
  return JSON.parse(readFileSync(new URL(CAPTURED + name, import.meta.url), 'utf8')) as { records: unknown[] };
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`pi-daemon capture: ${what} not found`);
  return value;
}

let cached: PiCaptures | undefined;

export function loadPiCaptures(): PiCaptures {
  if (cached) return structuredClone(cached);
  const rest = readCapture('rest-session-lifecycle.json').records as HttpRecord[];
  const rpc = readCapture('rpc-websocket.json').records as WsRecord[];
  const acp = readCapture('acp-websocket.json').records as WsRecord[];

  const byLabel = (label: string) => must(rest.find((r) => r.label === label), label);
  const capabilities = byLabel('capabilities').response.body.data as Json;
  const session = byLabel('session.get').response.body.data as Json;
  const createRequest = byLabel('session.create').request.body as Json;

  const framed = rpc.filter((r) => r.conn === 'ws-1' && r.kind === 'ws');
  const attachReady = must(framed.find((r) => r.data?.kind === 'attach_ready')?.data, 'attach_ready');
  const response = (command: string) =>
    must(
      framed.find((r) => r.data?.kind === 'response' && (r.data.response as Json).command === command)?.data?.response as Json | undefined,
      `${command} response`,
    );
  const rpcState = response('get_state').data as Json;
  const entries = response('get_entries').data as Json;
  const toolTurnEvents = framed
    .filter((r) => r.dir === 'server->client' && r.data?.kind === 'event')
    .sort((a, b) => (a.data!.sequence as number) - (b.data!.sequence as number))
    .map((r) => r.data!.event as Json);
  const promptCommand = must(
    framed.find((r) => r.data?.kind === 'command' && (r.data.command as Json).type === 'prompt')?.data?.command as Json | undefined,
    'framed prompt command',
  );

  const raw = rpc.filter((r) => r.conn === 'ws-5' && r.kind === 'ws');
  const rawPrompt = must(raw.find((r) => r.dir === 'client->server' && r.data?.type === 'prompt')?.data, 'raw prompt');
  const rawPromptIndex = raw.findIndex((r) => r.data === rawPrompt);
  const textTurnEvents = raw
    .slice(rawPromptIndex + 1)
    .filter((r) => r.dir === 'server->client' && r.data?.type !== 'response')
    .map((r) => r.data as Json);

  const frames = acp.filter((r) => r.kind === 'ws');
  const acpResult = (id: number) => must(frames.find((r) => r.dir === 'server->client' && r.data?.id === id)?.data?.result as Json | undefined, `acp result ${id}`);
  const idOf = (method: string, nth = 0) =>
    must(frames.filter((r) => r.dir === 'client->server' && r.data?.method === method)[nth]?.data?.id as number | undefined, `acp ${method}`);
  const updatesBetween = (requestId: number) => {
    const start = frames.findIndex((r) => r.dir === 'client->server' && r.data?.id === requestId);
    const end = frames.findIndex((r, i) => i > start && r.dir === 'server->client' && r.data?.id === requestId);
    return frames.slice(start + 1, end).filter((r) => r.data?.method === 'session/update').map((r) => r.data!.params as Json);
  };
  const loadId = idOf('session/load');
  const textPromptId = idOf('session/prompt', 0);
  const toolPromptId = idOf('session/prompt', 1);

  cached = {
    capabilities,
    session,
    createRequest,
    attachReady,
    rpcState,
    entries,
    toolTurnEvents,
    toolTurnUserText: promptCommand.message as string,
    textTurnEvents,
    textTurnUserText: rawPrompt.message as string,
    acpInitialize: acpResult(idOf('initialize')),
    acpLoadResult: acpResult(loadId),
    acpLoadHistory: updatesBetween(loadId),
    acpTextTurn: updatesBetween(textPromptId),
    acpToolTurn: updatesBetween(toolPromptId),
  };
  return structuredClone(cached);
}
