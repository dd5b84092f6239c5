import { openRecording } from '../store/open-recording.js';
import { caseExchangeOf, type CaseExchange } from './case-name.js';

/** Every exchange of a recording, as a report names its cases: read once, when a report is asked for. */
export function recordingExchanges(file: string): CaseExchange[] {
  const reader = openRecording(file);
  try {
    return reader.exchanges().map(caseExchangeOf);
  } finally {
    reader.close();
  }
}
