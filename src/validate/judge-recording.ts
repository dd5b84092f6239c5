import type { ProtocolId } from '../protocols/catalog.js';
import { loadModule } from '../protocols/catalog.js';
import type { SchemaRegistry } from '../schema/schema-registry.js';
import type { ExchangeFields } from '../store/schema.js';
import { RecordingReader } from '../store/recording-reader.js';
import { openRecording } from '../store/open-recording.js';
import { InputJudging, protocolsOfInput, type StreamJudge, type ValidationReport } from './judge-input.js';
import type { ExchangeFinding, ReadProgress, SourceStream } from './message-source.js';
import { ExchangeContext, findingsOfExchange, sourceMessageOf, streamOfExchange } from './recording-input.js';

/**
 * `validate` of a recording: each message judged as it is read, in id order (the order record
 * judged in), so that a message's value goes once judged, and what is held across messages is what
 * the rules need: each stream's checker and its last message, and every message's verdict for the
 * report. The report is judgeInput's of recordingInput's input, byte for byte: the same streams, in
 * the same order, each checker given the same request, every message judged in the same order.
 * Only the modules of the protocols the recording has are loaded. `progress` hears of each message judged;
 * `kept`: the report lists every message, or only those the text report prints (InputJudging's).
 * Messages of one repeated JSON text share its value (core/repeated-json.ts), which no checker changes.
 */
export async function judgeRecordingLoading(
  file: string,
  registry: SchemaRegistry,
  forced?: ProtocolId,
  progress?: ReadProgress,
  kept: 'all' | 'notable' = 'all',
): Promise<ValidationReport> {
  const reader = openRecording(file);
  RecordingReader.readsOnce(reader);
  try {
    progress?.total(reader.totals().messages);
    const exchanges: ExchangeFields[] = [];
    const streams: SourceStream[] = [];
    const ofExchanges: ExchangeFinding[] = [];
    for (const exchange of RecordingReader.exchangeColumns(reader)) {
      ofExchanges.push(...findingsOfExchange(exchange));
      // An exchange without messages still ends, when a protocol claimed it: an MCP session's DELETE ends that session.
      if (exchange.protocol === null && !RecordingReader.hasMessages(reader, exchange.id)) continue;
      exchanges.push(exchange);
      streams.push(streamOfExchange(exchange));
    }
    // A recording's streams are judged by the protocol record chose (or --protocol): their messages do not vote.
    const protocols = protocolsOfInput({ file, format: 'capture', streams }, forced);
    const ids = [...new Set(protocols.filter((id) => id !== undefined))];
    const loaded = new Map(await Promise.all(ids.map(async (id) => [id, await loadModule(id)] as const)));
    const judging = new InputJudging(registry, kept);
    const judges = new Map<number, { context: ExchangeContext; judge: StreamJudge }>();
    streams.forEach((stream, i) => {
      const exchange = exchanges[i]!;
      const id = protocols[i];
      const module = id === undefined ? undefined : loaded.get(id)!;
      // The request its checker keeps: the exchange's first client message with a value, read ahead when it is not its first.
      const request = module && RecordingReader.firstRequestToJudge(reader, exchange.id);
      const context = new ExchangeContext(exchange);
      judges.set(exchange.id, { context, judge: judging.addStream(stream, module, request && sourceMessageOf(context, request)) });
    });
    // A text that came before is not parsed again, nor its schema findings sought again (core/repeated-json.ts); the rules still see every message.
    // A page of messages at a time, each looped over here: a generator's step per message costs more.
    for (const page of RecordingReader.messagePagesToJudgeInOrder(reader)) {
      for (const m of page) {
        const of = judges.get(m.exchangeId);
        // A message of no exchange the recording lists is read by no command.
        if (of === undefined) continue;
        // A JSON value the reader hands out was found not too deep to walk (a deep one comes as its text).
        judging.judge(of.judge, sourceMessageOf(of.context, m), m.json !== undefined);
        progress?.read();
      }
    }
    return judging.report(file, 'capture', ofExchanges.length === 0 ? undefined : ofExchanges);
  } finally {
    reader.close();
  }
}
