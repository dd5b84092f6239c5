/**
 * Rule ids of every AG-UI finding, in one place.
 *
 * The codes in the first column are those of the verifyEvents table in
 * `docs/ag-ui-notes.md` §2.2 (ported from `@ag-ui/client@1.0.0` `src/verify/verify.ts`); K* are the chunk
 * expansion errors of §2.3 (`src/chunks/transform.ts`); D* are the draft rules the 1.0.0 client does not
 * check yet (conformance files under `spec/draft/conformance/streams/`); P* come from the apply stage (§2.5;
 * P4 is a check the 1.0.0 client does not make, listed in §2.2 "Not checked").
 *
 * | Code | Rule id                              | Severity | Pointer                                   | What                                                                        |
 * |------|--------------------------------------|----------|-------------------------------------------|-----------------------------------------------------------------------------|
 * | —    | `schema`                             | error    | ajv instance path                         | the event (or RunAgentInput) does not match its `$def`                      |
 * | —    | `unknown-event-type`                 | error    | `/type`                                   | `type` missing or not in `EventType`; the client drops such events          |
 * | —    | `event-not-object`                   | error    | ``                                        | an event frame that is not a JSON object                                    |
 * | L1   | `first-event-must-be-run-started`    | error    | `/type`                                   | first event is neither RUN_STARTED nor RUN_ERROR                            |
 * | L2   | `event-after-run-error`              | error    | `/type`                                   | anything but RUN_STARTED after RUN_ERROR                                    |
 * | L3   | `event-after-run-finished`           | error    | `/type`                                   | anything but RUN_STARTED / RUN_ERROR after RUN_FINISHED                     |
 * | L4   | `run-started-while-active`           | error    | `/type`                                   | RUN_STARTED while the previous run is still open                            |
 * | L5   | `run-finished-with-open-items`       | error    | ``                                        | RUN_FINISHED with open steps, messages, reasoning, tool calls or subagents  |
 * | T1   | `text-message-already-started`       | error    | `/messageId`                              | TEXT_MESSAGE_START for an id that is open                                   |
 * | T2   | `text-message-content-not-started`   | error    | `/messageId`                              | TEXT_MESSAGE_CONTENT for an id that is not open                             |
 * | T3   | `text-message-end-not-started`       | error    | `/messageId`                              | TEXT_MESSAGE_END for an id that is not open                                 |
 * | C1   | `tool-call-already-started`          | error    | `/toolCallId`                             | TOOL_CALL_START for an id that is open                                      |
 * | C2   | `tool-call-args-not-started`         | error    | `/toolCallId`                             | TOOL_CALL_ARGS for an id that is not open                                   |
 * | C3   | `tool-call-end-not-started`          | error    | `/toolCallId`                             | TOOL_CALL_END for an id that is not open                                    |
 * | C4   | `tool-call-parent-owner-mismatch`    | error    | `/subagentRunId`                          | a tool call's tag differs from its parent message's owner                   |
 * | C5   | `tool-call-reopen-owner-mismatch`    | error    | `/parentMessageId`                        | untagged reopen under a parent owned by someone else                        |
 * | S1   | `step-already-started`               | error    | `/stepName`                               | STEP_STARTED for a name open under the same owner                           |
 * | S2   | `step-finished-by-other-owner`       | error    | `/subagentRunId` (or `/stepName`)         | STEP_FINISHED by an owner other than the one that opened it                 |
 * | S3   | `step-not-started`                   | error    | `/stepName`                               | STEP_FINISHED for a step nobody opened                                      |
 * | R1   | `reasoning-span-already-started`     | error    | `/messageId`                              | REASONING_START for an open span                                            |
 * | R2   | `reasoning-message-already-started`  | error    | `/messageId`                              | REASONING_MESSAGE_START for an open reasoning message                       |
 * | R3   | `reasoning-span-not-started`         | error    | `/messageId`                              | REASONING_END without an open span                                          |
 * | R4   | `reasoning-message-not-started`      | error    | `/messageId`                              | REASONING_MESSAGE_CONTENT / _END without an open reasoning message          |
 * | O1   | `subagent-attribution-mismatch`      | error    | `/subagentRunId`                          | a continuation or closer tagged with another owner than its opener          |
 * | N1   | `null-subagent-run-id`               | error    | `/subagentRunId`                          | `subagentRunId: null` on an event                                           |
 * | N2   | `null-subagent-run-id-in-message`    | error    | `/messages/<i>/subagentRunId`             | `subagentRunId: null` on a message of MESSAGES_SNAPSHOT / RUN_STARTED.input |
 * | N3   | `null-subagent-optional-field`       | error    | `/<field>`                                | a null optional field on SUBAGENT_*                                         |
 * | N4   | `null-subagent-run-id-in-interrupt`  | error    | `/outcome/interrupts/<i>/subagentRunId`   | `subagentRunId: null` on an interrupt                                       |
 * | A1   | `subagent-started-missing-field`     | error    | `/subagentRunId` or `/name`               | SUBAGENT_STARTED without subagentRunId or name                              |
 * | A2   | `subagent-already-active`            | error    | `/subagentRunId`                          | SUBAGENT_STARTED for an active subagent                                     |
 * | A3   | `subagent-id-reused`                 | error    | `/subagentRunId`                          | SUBAGENT_STARTED for a subagent that finished in this run                   |
 * | A4   | `subagent-parent-not-started`        | error    | `/parentSubagentRunId`                    | parentSubagentRunId never started in this run                               |
 * | A5   | `subagent-close-missing-field`       | error    | `/subagentRunId` or `/message`            | SUBAGENT_FINISHED / _ERROR without an id, SUBAGENT_ERROR without a message  |
 * | A6   | `subagent-not-active`                | error    | `/subagentRunId`                          | SUBAGENT_FINISHED / _ERROR for a subagent that is not active                |
 * | A7   | `subagent-outcome-invalid`           | error    | `/outcome/...`                            | outcome type not success/suspended, null or non-string interruptIds         |
 * | K1   | `chunk-missing-id`                   | error    | `/messageId` or `/toolCallId`             | the first chunk of an item carries no id                                    |
 * | K2   | `chunk-missing-tool-call-name`       | error    | `/toolCallName`                           | the first TOOL_CALL_CHUNK carries no toolCallName                           |
 * | K3   | `chunk-field-conflict`               | error    | `/role`, `/name`, `/toolCallName`, ...    | a continuation chunk restates a field with another value                    |
 * | K4   | `chunk-subagent-conflict`            | error    | `/subagentRunId`                          | a chunk's tag differs from the lane whose item it continues                 |
 * | K5   | `chunk-ambiguous-lane`               | error    | ``                                        | an id-less untagged continuation with several candidate lanes              |
 * | D1   | `run-finished-run-id-mismatch`       | error    | `/runId`                                  | RUN_FINISHED.runId differs from its RUN_STARTED's (draft)                   |
 * | D2   | `run-finished-thread-id-mismatch`    | error    | `/threadId`                               | RUN_FINISHED.threadId differs from its RUN_STARTED's (draft)                |
 * | D3   | `run-thread-id-mismatch`             | error    | `/threadId`                               | a run on the stream is on another thread than the input (draft)             |
 * | D4   | `run-id-differs-from-input`          | error    | `/runId`                                  | the first RUN_STARTED.runId differs from RunAgentInput.runId (draft)        |
 * | D5   | `duplicate-interrupt-id`             | error    | `/outcome/interrupts/<i>/id`              | two interrupts of one RUN_FINISHED share an id (draft)                      |
 * | D6   | `stream-truncated`                   | error    | ``                                        | the stream ended without a terminal event for its run (draft); from end()   |
 * | P1   | `state-patch-failed`                 | warning  | `/delta/<i>` or `/delta`                  | STATE_DELTA does not apply; the state is kept                               |
 * | P2   | `activity-patch-failed`              | warning  | `/patch/<i>` or `/patch`                  | ACTIVITY_DELTA does not apply; the content is kept                          |
 * | P3   | `activity-delta-unknown-target`      | warning  | `/messageId`                              | ACTIVITY_DELTA for an activity never snapshotted (spec: SHOULD warn)        |
 * | P4   | `tool-call-result-unknown-call`      | warning  | `/toolCallId`                             | TOOL_CALL_RESULT for a call neither started on the stream nor in the input  |
 */
export const RULES = {
  schema: 'schema',
  unknownEventType: 'unknown-event-type',
  eventNotObject: 'event-not-object',

  L1: 'first-event-must-be-run-started',
  L2: 'event-after-run-error',
  L3: 'event-after-run-finished',
  L4: 'run-started-while-active',
  L5: 'run-finished-with-open-items',

  T1: 'text-message-already-started',
  T2: 'text-message-content-not-started',
  T3: 'text-message-end-not-started',

  C1: 'tool-call-already-started',
  C2: 'tool-call-args-not-started',
  C3: 'tool-call-end-not-started',
  C4: 'tool-call-parent-owner-mismatch',
  C5: 'tool-call-reopen-owner-mismatch',

  S1: 'step-already-started',
  S2: 'step-finished-by-other-owner',
  S3: 'step-not-started',

  R1: 'reasoning-span-already-started',
  R2: 'reasoning-message-already-started',
  R3: 'reasoning-span-not-started',
  R4: 'reasoning-message-not-started',

  O1: 'subagent-attribution-mismatch',

  N1: 'null-subagent-run-id',
  N2: 'null-subagent-run-id-in-message',
  N3: 'null-subagent-optional-field',
  N4: 'null-subagent-run-id-in-interrupt',

  A1: 'subagent-started-missing-field',
  A2: 'subagent-already-active',
  A3: 'subagent-id-reused',
  A4: 'subagent-parent-not-started',
  A5: 'subagent-close-missing-field',
  A6: 'subagent-not-active',
  A7: 'subagent-outcome-invalid',

  K1: 'chunk-missing-id',
  K2: 'chunk-missing-tool-call-name',
  K3: 'chunk-field-conflict',
  K4: 'chunk-subagent-conflict',
  K5: 'chunk-ambiguous-lane',

  D1: 'run-finished-run-id-mismatch',
  D2: 'run-finished-thread-id-mismatch',
  D3: 'run-thread-id-mismatch',
  D4: 'run-id-differs-from-input',
  D5: 'duplicate-interrupt-id',
  D6: 'stream-truncated',

  P1: 'state-patch-failed',
  P2: 'activity-patch-failed',
  P3: 'activity-delta-unknown-target',
  P4: 'tool-call-result-unknown-call',
} as const;

export type AguiRuleCode = keyof typeof RULES;
export type AguiRuleId = (typeof RULES)[AguiRuleCode];
