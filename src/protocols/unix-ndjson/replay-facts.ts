import type { ChannelHint, ProtocolFacts } from '../protocol.js';
import { answerNdjsonMiss } from './replay-miss.js';
import { UNIX_NDJSON_SCHEMAS } from './schemas.js';
import { NDJSON_RULES } from './unix-ndjson-rules.js';
import { sniffUnixNdjson, unixNdjsonMessageEvidence } from './sniff.js';

/** Which channels carry the Pi daemon's unix-socket NDJSON, and how a replay matches and answers it. */
export const unixNdjsonReplayFacts: ProtocolFacts<'unix-ndjson', 'ndjson' | 'file'> = {
  id: 'unix-ndjson',
  transports: ['ndjson', 'file'],
  streamEndRules: [NDJSON_RULES.unansweredCommand],
  // Its events fold as Pi RPC's do; its schemas refer to the daemon's.
  buildsOn: ['pi-rpc', 'pi-rest'],
  schemas: UNIX_NDJSON_SCHEMAS,
  classify(hint: ChannelHint): number {
    return hint.transport === 'ndjson' ? 1 : 0;
  },
  channelEvidence: () => 'Pi daemon NDJSON socket',
  sniff: sniffUnixNdjson,
  messageEvidence: unixNdjsonMessageEvidence,
  // A command's requestId (and idempotencyKey) come back on its events and response; clients mint them per run.
  fields: { '/requestId': 'echoed-client-id', '/idempotencyKey': 'echoed-client-id' },
  replay: { missAnswers: { message: answerNdjsonMiss, summary: 'NDJSON socket commands get an ok:false response' } },
};
