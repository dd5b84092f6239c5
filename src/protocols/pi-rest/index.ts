import type { InboundMessage } from '../../core/message.js';
import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import type { RecordingSecrets } from '../recording-secrets.js';
import { redactSessionEnv, sessionEnvOf } from './session-env.js';
import { guessPiRestSender } from './detection.js';
import { PiRestChecker } from './pi-rest-checker.js';
import { piRestReplayFacts } from './replay-facts.js';

/** The Pi daemon session API over HTTP (`/v1/...`): envelopes, tickets, sessions, blobs, schedules, dashboard. */
export const piRestProtocol: ProtocolModule<'pi-rest'> = {
  ...piRestReplayFacts,
  title: 'Pi daemon REST API',
  guessSender: guessPiRestSender,
  createChecker(context: CheckerContext): ProtocolChecker {
    return new PiRestChecker(context);
  },
  // Ticket, session-version and request-id rules span many calls, so one checker sees them all.
  checkerScope: 'recording',
  redactForStorage(message: InboundMessage, secrets: RecordingSecrets): unknown {
    return message.sender === 'client' && sessionEnvOf(message.value) ? redactSessionEnv(message.value, secrets) : undefined;
  },
};

export { PiRestChecker } from './pi-rest-checker.js';
export { PI_REST_RULES, type PiRestRuleId } from './rule-ids.js';
export { redactSessionEnv, sessionEnvOf, SESSION_ENV_POINTER, SESSION_ENV_VALUES } from './session-env.js';
export { routeTable, API_BASE_PATH, type RouteSpec, type SchemaSpec, type BodySpec } from './route-table.js';
export { matchRoute, type RouteMatch } from './route-matcher.js';
export { schemaCheckFor } from './schema-lookup.js';
