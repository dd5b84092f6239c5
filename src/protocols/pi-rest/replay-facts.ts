import type { ProtocolFacts } from '../protocol.js';
import { classifyPiRest, piRestChannelEvidence, piRestMessageEvidence, sniffPiRest } from './detection.js';
import { answerPiRestMiss, piRestRouteTemplate } from './replay-miss.js';
import { SESSION_ENV_VALUES } from './session-env.js';
import { PI_DAEMON_SCHEMAS } from './schemas.js';

/** Which channels are Pi daemon REST calls, and how a replay matches and answers them. */
export const piRestReplayFacts: ProtocolFacts<'pi-rest', 'http' | 'file'> = {
  id: 'pi-rest',
  family: 'pi-daemon',
  transports: ['http', 'file'],
  schemas: PI_DAEMON_SCHEMAS,
  classify: classifyPiRest,
  channelEvidence: piRestChannelEvidence,
  sniff: sniffPiRest,
  messageEvidence: piRestMessageEvidence,
  fields: {
    // The envelope echoes X-Request-Id, else the body's requestId (request-id-rules.ts); a ticket
    // echoes the Idempotency-Key it was submitted with.
    requestId: { echoedFrom: ['header:x-request-id', '/requestId'] },
    idempotencyKey: { echoedFrom: ['header:idempotency-key'] },
    submittedAt: 'volatile',
    updatedAt: 'volatile',
    createdAt: 'volatile',
    lastUsedAt: 'volatile',
    timestamp: 'volatile',
    // Stored as keyed digests (redactForStorage): a recorded env value stands for any live one.
    [SESSION_ENV_VALUES]: 'write-only',
  },
  replay: {
    missAnswers: { http: answerPiRestMiss, summary: "Pi REST requests get 404 with the daemon's error envelope" },
    routeTemplate: piRestRouteTemplate,
  },
};
