import * as z from 'zod';
import {
  AuditMarkSchema,
  CapacityRangeSchema,
  CapacitySchema,
  DrillRunSchema,
  NoticeSchema,
  BacklogItemSchema,
  FindingSchema,
  HostStateSchema,
  LessonSchema,
  CycleSchema,
  DeadmanSchema,
  ProblemSchema,
  PullRequestSchema,
  SnapshotSchema,
  TaskSchema,
} from './domain';
import { keyedDeltaSchema } from './deltas';
import { PreflightSchema } from './preflight';
import { ContractBreachSchema } from './contract-breach';
import { DeskMergeSchema, DeskPrSchema } from './pr-desk';
import { CallerSchema, type Caller } from './roles';
import { NightSummarySchema } from './night-summary';
import { CompareNightsInputSchema, NightComparisonSchema } from './night-compare';
import { MaintenanceWindowInputSchema, MaintenanceWindowSchema } from './maintenance';
import { LedgerPageAnswerSchema, LedgerPageInputSchema, SummarySchema } from './ledger-slice';
import {
  TranscriptAtSchema,
  TranscriptChangedSchema,
  TranscriptInfoSchema,
  TranscriptLinesSchema,
  TranscriptRefSchema,
  TranscriptSearchInputSchema,
  TranscriptSearchSchema,
  TRANSCRIPT_MAX_ROWS,
} from './transcript-domain';

/** How the console reached its configuration: loaded, absent (first run) or invalid. */
export const ConfigStatusSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('loaded'), path: z.string() }),
  z.object({ state: z.literal('missing'), path: z.string() }),
  z.object({ state: z.literal('invalid'), path: z.string(), message: z.string() }),
]);
/** How the console reached its configuration. */
export type ConfigStatus = z.infer<typeof ConfigStatusSchema>;

const Empty = z.object({}).strict();

/**
 * A drill's argument values by name. A `__proto__` key (which JSON.parse makes an own property)
 * is refused with its name: zod's record would drop it silently, and a drill must run with
 * exactly the arguments asked for or not at all.
 */
const DrillArgsSchema = z
  .preprocess((v, ctx) => {
    if (v !== null && typeof v === 'object' && Object.hasOwn(v, '__proto__')) {
      ctx.addIssue({ code: 'custom', message: 'no drill argument may be named __proto__' });
      return z.NEVER;
    }
    return v;
  }, z.record(z.string().max(64), z.string().max(256)))
  .default({});

/** How much of a renderer error report is kept, in characters: the rest is cut off. */
export const RENDERER_ERROR_LIMITS = { message: 2000, stack: 8000, source: 500 } as const;
/** Renderer error reports one client may send a minute; the excess is dropped (and that is logged). */
export const RENDERER_ERRORS_PER_MINUTE = 20;

/** A string cut to `max` characters (with a marker) rather than refused. */
function clipped(max: number) {
  return z.string().transform((s) => (s.length > max ? `${s.slice(0, max)}… [cut, ${s.length} characters]` : s));
}

/**
 * Every command the renderer (or any client) may send, declared once: `domain.verb` → input and
 * output schemas. Both transports dispatch through `main/rpc`, which validates input with these.
 */
export const commands = {
  'app.info': {
    input: Empty,
    output: z.object({
      version: z.string(),
      shell: z.enum(['electron', 'serve']),
      config: ConfigStatusSchema,
      dataDir: z.string(),
      demo: z.boolean(),
      /** Who asks, and with which role: the console hides what the role may not do. */
      caller: CallerSchema,
    }),
  },
  'state.snapshot': { input: Empty, output: SnapshotSchema },
  /** The state without the ledgers' rows: the renderer's first load, bounded whatever the history. */
  'state.summary': { input: Empty, output: SummarySchema },
  /**
   * The ledgers' rows a page at a time, from one frozen copy (`cursor: null` opens one); `ready:
   * false` while the first read after a start has not caught up (there are no rows yet).
   */
  'ledgers.page': { input: LedgerPageInputSchema, output: LedgerPageAnswerSchema },
  'demo.start': { input: Empty, output: z.object({ configPath: z.string() }) },
  /** Trust the host key a host presented; the fingerprint must be the one the operator saw. */
  'hosts.trust': {
    input: z.object({ host: z.string().min(1), fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]+$/) }).strict(),
    output: z.object({ trusted: z.literal(true) }),
  },
  /** Forget the host keys trusted in Loopdeck for a host and reconnect (known_hosts is not touched). */
  'hosts.untrust': {
    input: z.object({ host: z.string().min(1) }).strict(),
    output: z.object({ removed: z.number().int().min(0) }),
  },
  /** Downsampled capacity history for the charts: at most `maxPoints` per series. */
  'capacity.history': {
    input: z
      .object({
        range: CapacityRangeSchema,
        proxy: z.string().optional(),
        host: z.string().optional(),
        maxPoints: z.number().int().min(10).max(5000).default(1000),
      })
      .strict(),
    output: z.object({
      from: z.string(),
      to: z.string(),
      series: z.array(
        z.object({
          proxy: z.string(),
          host: z.string(),
          /** Sample times, ms since the epoch. */
          t: z.array(z.number()),
          slotsBusy: z.array(z.number().nullable()),
          inflight: z.array(z.number().nullable()),
          queued: z.array(z.number().nullable()),
          /** Requests per second. */
          requestRate: z.array(z.number().nullable()),
          /** Errors per second by status. */
          errors: z.record(z.string(), z.array(z.number().nullable())),
          /** Generated tokens per second (hosts read from Prometheus); absent where no source knows it. */
          tokenRate: z.array(z.number().nullable()).optional(),
          /** KV-cache in use, 0–100 % (vLLM, and llama.cpp builds that expose it); absent where no host exposed it. */
          kvCache: z.array(z.number().nullable()).optional(),
        }),
      ),
      /** Warnings worth showing beside the charts (e.g. a shed threshold far above where errors began). */
      warnings: z.array(z.string()),
    }),
  },
  /** Move the review watermark to now: what is "new" is what arrived after it. */
  'review.mark': { input: Empty, output: z.object({ lastReviewedAt: z.string(), lastReviewedBy: z.string() }) },
  /** Tick a step of a PR's Next section done (`step` from 0); who and when are kept and shown to everyone. */
  'prs.nextDone': {
    input: z.object({ loop: z.string().min(1), number: z.number().int().positive(), step: z.number().int().min(0).max(99) }).strict(),
    output: z.object({ doneBy: z.string(), doneAt: z.string() }),
  },
  /**
   * Merge a PR from the desk: only of the head the operator saw (`sha`, GitHub's precondition too),
   * only when every check passed and every Next step is ticked; `method` defaults to `prs.mergeMethod`.
   */
  'prs.merge': {
    input: z.object({ loop: z.string().min(1), number: z.number().int().positive(), sha: z.string().regex(/^[0-9a-f]{40}$/), method: z.enum(['merge', 'squash', 'rebase']).optional() }).strict(),
    output: DeskMergeSchema,
  },
  /** Plan a maintenance window (an operator's or admin's): read as a `maintenance:` entry of the config is; its id. */
  'maintenance.add': { input: z.object({ window: MaintenanceWindowInputSchema }).strict(), output: z.object({ id: z.string() }) },
  /** End a window the console added: one in force ends now, one not begun or recurring is dropped. */
  'maintenance.end': { input: z.object({ id: z.string().min(1).max(100) }).strict(), output: z.object({ endedAt: z.string() }) },
  'notices.ack': { input: z.object({ key: z.string().min(1) }).strict(), output: z.object({ acknowledgedAt: z.string() }) },
  'notices.snooze': {
    input: z.object({ key: z.string().min(1), minutes: z.number().int().min(1).max(7 * 24 * 60) }).strict(),
    output: z.object({ snoozedUntil: z.string() }),
  },
  /**
   * Run a drill declared in the config: only its name and argument values cross this boundary,
   * never a command. `confirm` must repeat the drill's name.
   */
  'drills.run': {
    input: z
      .object({
        name: z.string().min(1).max(100),
        args: DrillArgsSchema,
        confirm: z.string(),
        overrideRunningPhase: z.boolean().default(false),
      })
      .strict(),
    output: z.object({ runId: z.string() }),
  },
  'drills.cancel': { input: z.object({ runId: z.string().min(1) }).strict(), output: z.object({ cancelled: z.boolean() }) },
  /** A run's output from a byte offset (the live view catches up, then follows events). */
  'drills.output': {
    input: z.object({ runId: z.string().min(1), from: z.number().int().min(0).default(0) }).strict(),
    output: z.object({ text: z.string(), next: z.number().int() }),
  },
  /** Give the passphrase of an encrypted identity file; kept in memory only, never stored. */
  'hosts.unlock': {
    input: z.object({ host: z.string().min(1), passphrase: z.string().min(1).max(1024) }).strict(),
    output: z.object({ unlocked: z.boolean() }),
  },
  /**
   * An error the renderer caught (window `error`, `unhandledrejection`), for main's log file. Long
   * strings are cut, not refused, so the report still lands; each client is rate-limited
   * (RENDERER_ERRORS_PER_MINUTE), and `logged: false` says this one was dropped.
   */
  'log.error': {
    input: z
      .object({
        message: clipped(RENDERER_ERROR_LIMITS.message),
        stack: clipped(RENDERER_ERROR_LIMITS.stack).optional(),
        source: clipped(RENDERER_ERROR_LIMITS.source).optional(),
      })
      .strict(),
    output: z.object({ logged: z.boolean() }),
  },
  /**
   * Open a phase's transcript (`<phase>.log` of the cycle, resolved from the loop's config): the
   * file as it is now, whether the phase runs, and its marks. Opening (and reading lines) makes
   * the console follow it: `transcript.changed` is published for it for TRANSCRIPT_INTEREST_MS.
   */
  'transcript.open': { input: TranscriptRefSchema.strict(), output: TranscriptInfoSchema },
  /** Up to `count` lines from a line, a fraction of the file's lines, or its end: only their bytes are read. */
  'transcript.lines': {
    input: TranscriptRefSchema.extend({ at: TranscriptAtSchema, count: z.number().int().min(1).max(TRANSCRIPT_MAX_ROWS).default(200) }).strict(),
    output: TranscriptLinesSchema,
  },
  /** The nights the store keeps for Trends, each loop's `history` (or `nights`, if fewer) back from its newest, oldest first. */
  'trends.nights': {
    input: z.object({ loop: z.string().min(1).optional(), nights: z.number().int().min(1).max(1000).optional() }).strict(),
    output: z.object({ nights: z.array(NightSummarySchema).readonly() }),
  },
  /** Search the transcript where it is (grep on the host), bounded in time and output. */
  'transcript.search': { input: TranscriptSearchInputSchema, output: TranscriptSearchSchema },
  /**
   * Night against night: night `a` of a loop beside night `b` (default: the last night before `a`
   * whose cycle was ok or ready) — each phase's outcome and commits, the first rc step and the
   * first transcript line where they part (streamed from the host within bounds), the findings,
   * PRs and fleet of each. An error names the loop, night or host that is missing.
   */
  'nights.compare': { input: CompareNightsInputSchema.strict(), output: NightComparisonSchema },
} as const;

/** Every event main publishes, named in the past tense, with its payload schema. */
export const events = {
  /**
   * One loop's cycles that changed (new to its window, or derived anew), the dates that left the
   * window, and its dead-man when that changed: a delta, never the loop's whole history.
   */
  'loop.changed': z.object({
    loop: z.string(),
    host: z.string(),
    upserted: z.array(CycleSchema).readonly(),
    removed: z.array(z.string()).readonly(),
    deadman: DeadmanSchema.nullable().optional(),
  }),
  'hosts.changed': z.object({ hosts: z.array(HostStateSchema).readonly() }),
  'problems.changed': z.object({ problems: z.array(ProblemSchema).readonly() }),
  'config.changed': z.object({ config: ConfigStatusSchema, demo: z.boolean() }),
  /**
   * What one loop's ledgers changed: the findings, backlog items, tasks, lessons and audit marks
   * added or changed, and the keys (shared/deltas.ts) of those gone. A section of 50 findings
   * sends those 50; a restart publishes what was stored (as `ledgers.reset` when it is more than
   * LEDGER_DELTA_MAX_ROWS rows).
   */
  'ledgers.changed': z.object({
    loop: z.string(),
    findings: keyedDeltaSchema(FindingSchema),
    backlog: keyedDeltaSchema(BacklogItemSchema),
    tasks: keyedDeltaSchema(TaskSchema),
    lessons: keyedDeltaSchema(LessonSchema),
    audits: keyedDeltaSchema(AuditMarkSchema),
  }),
  /**
   * One loop's ledgers changed too much for a delta (more than LEDGER_DELTA_MAX_ROWS rows, e.g.
   * the first poll after a restart): read them again (`ledgers.page`). `rows` is how many changed.
   */
  'ledgers.reset': z.object({ loop: z.string(), rows: z.number().int().nonnegative() }),
  /** The first read after a start has caught up (until then `state.summary` was `restored` or `reading`): load it again. */
  'state.reset': z.object({}),
  'prs.changed': z.object({ prs: z.array(PullRequestSchema).readonly() }),
  'capacity.changed': z.object({ capacity: z.array(CapacitySchema).readonly() }),
  /**
   * Notices raised, acknowledged or snoozed (those only; the first start's seed sends the newest
   * `NOTICE_LIST_LIMIT`), and the review watermark.
   */
  'notices.changed': z.object({ notices: z.array(NoticeSchema).readonly(), lastReviewedAt: z.string().nullable(), lastReviewedBy: z.string().nullable().optional() }),
  /** A notice to show now (toast, desktop notification): raised, or an emergency repeating. */
  'notice.raised': z.object({ notice: NoticeSchema, repeat: z.boolean() }),
  /** The maintenance windows (config and console) changed, or one began or ended: sent whole (bounded). */
  'maintenance.changed': z.object({ maintenance: z.array(MaintenanceWindowSchema).readonly() }),
  'drills.changed': z.object({ runs: z.array(DrillRunSchema).readonly() }),
  /** The loops' pre-flights: one ran, or one's fire passed (a small slice, sent whole). */
  'preflight.changed': z.object({ preflight: z.array(PreflightSchema).readonly() }),
  /** The Broken contract list (shared/contract-breach.ts) moved: sent whole (it is bounded, MAX_CONTRACT_BREACHES). */
  'contract.changed': z.object({ contract: z.array(ContractBreachSchema).readonly() }),
  /** The merge desk moved (GitHub's answer, a tick, a merge): sent whole (the open PRs, a few dozen). */
  'desk.changed': z.object({ desk: z.array(DeskPrSchema).readonly() }),
  /** Show a view: the desktop shell sends it when the operator clicks a notification. */
  'app.navigate': z.object({ hash: z.string().regex(/^#\//) }),
  /** Output of a running drill, in order, from byte `from`. */
  'drill.output': z.object({ runId: z.string(), from: z.number().int(), text: z.string() }),
  /** Kept nights written in one poll (a followed cycle that changed, or older nights read once): one row each, never the whole history. */
  'nights.changed': z.object({ upserted: z.array(NightSummarySchema).readonly() }),
  /** A transcript a client opened in the last TRANSCRIPT_INTEREST_MS grew, shrank or was replaced (once per poll at most). */
  'transcript.changed': TranscriptChangedSchema,
} as const;

/** Name of a command. */
export type CommandName = keyof typeof commands;
/** Input type of a command (after validation). */
export type CommandInput<N extends CommandName> = z.infer<(typeof commands)[N]['input']>;
/** Output type of a command. */
export type CommandOutput<N extends CommandName> = z.infer<(typeof commands)[N]['output']>;
/**
 * One handler per command, each seeing only input that passed the command's schema and a caller
 * whose role allows it (shared/roles.ts): the core implements it, both transports dispatch to it.
 */
export type Handlers = { readonly [N in CommandName]: (input: CommandInput<N>, caller: Caller) => Promise<CommandOutput<N>> | CommandOutput<N> };
/** Name of an event. */
export type EventName = keyof typeof events;
/** Payload type of an event. */
export type EventPayload<E extends EventName> = z.infer<(typeof events)[E]>;
/** One published event as `[name, payload]`, keyed by name: a test of the name narrows the payload. */
export type AnyEvent = { [E in EventName]: [event: E, payload: EventPayload<E>] }[EventName];
/** Receives published events; `(event, payload) => { if (event === 'x') … }` sees x's payload, with no cast. */
export type EventListener = (...event: AnyEvent) => void;
/** Hand one event to a listener (the one place a generic name is matched to its payload). */
export function deliverEvent<E extends EventName>(listener: EventListener, event: E, payload: EventPayload<E>): void {
  listener(...([event, payload] as unknown as AnyEvent));
}

/** Codes of the errors a command can answer with, so clients can branch on them. */
export const RpcErrorCodeSchema = z.enum(['unknown-command', 'invalid-input', 'handler-failed', 'unauthorized', 'forbidden']);
/** Code of an RPC error. */
export type RpcErrorCode = z.infer<typeof RpcErrorCodeSchema>;

/** A typed command failure as it crosses a transport. */
export const RpcErrorSchema = z.object({
  code: RpcErrorCodeSchema,
  message: z.string(),
  /** For `invalid-input`: where in the input, and what was expected. */
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /** The HTTP status the refusal stands for (403 for `forbidden`: the caller's role does not allow the command). */
  status: z.number().int().optional(),
});
/** A typed command failure. */
export type RpcError = z.infer<typeof RpcErrorSchema>;

/** The result of one dispatch: the output, or a typed error. */
export type RpcResult<T = unknown> = { readonly ok: true; readonly output: T } | { readonly ok: false; readonly error: RpcError };

/** The single IPC channel name the preload and the Electron shell share. */
export const IPC_INVOKE_CHANNEL = 'loopdeck:invoke';
/** The IPC channel events are sent on. */
export const IPC_EVENT_CHANNEL = 'loopdeck:event';

/** WebSocket frames, client → server: one command call. */
export const WsRequestSchema = z.object({ id: z.number().int().nonnegative(), name: z.string(), input: z.unknown() });
/** WebSocket frames, server → client: an answer or an event. */
export const WsServerFrameSchema = z.union([
  z.object({ type: z.literal('result'), id: z.number().int(), result: z.unknown() }),
  /** `seq` numbers the events one client was sent (1, 2, …): a gap means one was lost. */
  z.object({ type: z.literal('event'), seq: z.number().int().positive().optional(), event: z.string(), payload: z.unknown() }),
]);
/** A server → client WebSocket frame. */
export type WsServerFrame = z.infer<typeof WsServerFrameSchema>;

/** What the preload exposes as `window.loopdeck`, and what every client transport implements. */
export interface LoopdeckBridge {
  invoke(name: string, input: unknown): Promise<RpcResult>;
  /** `seq`, where the transport numbers events, lets a client notice one it missed. */
  on(event: string, cb: (payload: unknown, seq?: number) => void): () => void;
}
