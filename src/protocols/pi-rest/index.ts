import type { InboundMessage } from '../../core/message.js';
import type { CheckerContext, ProtocolChecker, ProtocolModule } from '../protocol.js';
import type { RecordingSecrets } from '../recording-secrets.js';
import { redactSessionEnv, SESSION_ENV_VALUES, sessionEnvOf } from './session-env.js';
import { classifyPiRest, guessPiRestSender, sniffPiRest } from './detection.js';
import { PiRestChecker } from './pi-rest-checker.js';
import { answerPiRestMiss, piRestRouteTemplate } from './replay-miss.js';

/** The Pi daemon session API over HTTP (`/v1/...`): envelopes, tickets, sessions, blobs, schedules, dashboard. */
export const piRestProtocol: ProtocolModule = {
  id: 'pi-rest',
  title: 'Pi daemon REST API',
  classify: classifyPiRest,
  sniff: sniffPiRest,
  guessSender: guessPiRestSender,
  createChecker(context: CheckerContext): ProtocolChecker {
    return new PiRestChecker(context);
  },
  // Ticket, session-version and request-id rules span many calls, so one checker sees them all.
  checkerScope: 'recording',
  // The envelope echoes X-Request-Id, else the body's requestId (request-id-rules.ts); a ticket
  // echoes the Idempotency-Key it was submitted with.
  replay: {
    volatileFields: ['requestId', 'idempotencyKey', 'submittedAt', 'updatedAt', 'createdAt', 'lastUsedAt', 'timestamp'],
    echoFields: ['header:x-request-id', '/requestId', 'header:idempotency-key'],
    // Stored as keyed digests (redactForStorage): a recorded env value stands for any live one.
    writeOnlyFields: [SESSION_ENV_VALUES],
    missAnswers: { http: answerPiRestMiss },
    routeTemplate: piRestRouteTemplate,
  },
  redactForStorage(message: InboundMessage, secrets: RecordingSecrets): unknown {
    return message.sender === 'client' && sessionEnvOf(message.value) ? redactSessionEnv(message.value, secrets) : undefined;
  },
};

export { PiRestChecker } from './pi-rest-checker.js';
export { PI_REST_RULES, type PiRestRuleId } from './rule-ids.js';
export { redactSessionEnv, sessionEnvOf, SESSION_ENV_POINTER, SESSION_ENV_VALUES } from './session-env.js';
export { ROUTES, API_BASE_PATH, type RouteSpec, type SchemaSpec, type BodySpec } from './route-table.js';
export { matchRoute, type RouteMatch } from './route-matcher.js';
export { schemaCheckFor } from './schema-lookup.js';
