// Typed failures of API calls: the server said no (ApiError), the request failed (NetworkError), bad arguments.
import { ENVELOPE_KEYS, type KnownErrorCode } from "../api/envelope.js";

/** The server answered with an error body. Branch on `code`, never on `msg`. */
export class ApiError extends Error {
  override readonly name: string = "ApiError";
  /** Stable error code, e.g. `BAD_REQUEST`, `RATE_LIMIT_HIT`; `BAD_REQUEST` when the server sent none. */
  readonly code: KnownErrorCode | (string & {});
  /** HTTP status of the response. */
  readonly status: number;
  /** The server's human-readable (translated) message. */
  readonly msg: string;
  /** Extra keys of the error body, such as `var_name`, `stream`, `queue_id`, `retry-after`. */
  readonly extra: Readonly<Record<string, unknown>>;
  /** `METHOD /path` of the endpoint that failed. */
  readonly endpoint: string;

  constructor(init: {
    code: string;
    status: number;
    msg: string;
    extra: Record<string, unknown>;
    endpoint: string;
  }) {
    super(`${init.endpoint} failed with HTTP ${init.status} ${init.code}: ${init.msg}`);
    this.code = init.code;
    this.status = init.status;
    this.msg = init.msg;
    this.extra = init.extra;
    this.endpoint = init.endpoint;
  }

  /** Seconds the server asked us to wait (`retry-after`), if it did. */
  get retryAfter(): number | undefined {
    const value = this.extra["retry-after"];
    return typeof value === "number" ? value : undefined;
  }

  /**
   * Builds an ApiError from a parsed error body: one of the subclasses below when the body is
   * one of the refusals they stand for (`MessageEditWindowError`, `MessageMoveWindowError`,
   * `WidgetEditError`), a plain ApiError otherwise.
   */
  static fromBody(body: Record<string, unknown>, status: number, endpoint: string): ApiError {
    const extra: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if (!(ENVELOPE_KEYS as readonly string[]).includes(key)) extra[key] = value;
    }
    const init = {
      code: typeof body.code === "string" ? body.code : "BAD_REQUEST",
      status,
      msg: typeof body.msg === "string" ? body.msg : "",
      extra,
      endpoint,
    };
    const Special = refusalClass(init.code, init.msg);
    return Special ? new Special(init) : new ApiError(init);
  }
}

type ApiErrorInit = ConstructorParameters<typeof ApiError>[0];

/**
 * PATCH /messages/{id} refused a content edit because the message is older than the realm's
 * edit window (`realm_message_content_edit_limit_seconds` in the registration, 600 s by
 * default, plus the server's 20 s of grace). Post a new message instead.
 * The server sends it as `BAD_REQUEST`; it is recognised by its (English) message.
 *
 * @example
 * try { await client.messages.update({ message_id, content }); }
 * catch (e) { if (e instanceof MessageEditWindowError) await client.messages.send(...); else throw e; }
 */
export class MessageEditWindowError extends ApiError {
  override readonly name: string = "MessageEditWindowError";
}

/**
 * PATCH /messages/{id} refused a move: the message is older than the realm's limit for moving
 * it to another topic or channel (`realm_move_messages_within_stream_limit_seconds`,
 * `realm_move_messages_between_streams_limit_seconds`), or, for `propagate_mode: "change_all"`,
 * part of the topic is (`MOVE_MESSAGES_TIME_LIMIT_EXCEEDED`, whose extra keys say which part
 * may move: `firstMovable`, `movable`, `inTopic`). Moderators and administrators have no limit.
 */
export class MessageMoveWindowError extends ApiError {
  override readonly name: string = "MessageMoveWindowError";
  /** The oldest message of the topic the requester may move (change_all refusals), if given. */
  get firstMovable(): number | null | undefined {
    return this.extra.first_message_id_allowed_to_move as number | null | undefined;
  }
  /** How many of the topic's messages the requester may move (change_all refusals). */
  get movable(): number | undefined {
    return this.extra.total_messages_allowed_to_move as number | undefined;
  }
  /** How many messages the topic holds (change_all refusals). */
  get inTopic(): number | undefined {
    return this.extra.total_messages_in_topic as number | undefined;
  }
}

/**
 * PATCH /messages/{id} refused a content edit of a message that carries a widget (a poll, a
 * todo list, a zform from `widget_content`): such messages can never be edited. Change the
 * widget through submessages (`client.messages.addSubmessage`) or post a new message.
 */
export class WidgetEditError extends ApiError {
  override readonly name: string = "WidgetEditError";
}

/** The server's words for each refusal with a class of its own (past servers' spellings too). */
const REFUSALS: readonly [RegExp, new (init: ApiErrorInit) => ApiError][] = [
  [/^The time limit for editing this message has pa(ssed|st)\.?$/, MessageEditWindowError],
  [
    /^The time limit for editing this message's (topic|channel|stream) has pa(ssed|st)\.?$/,
    MessageMoveWindowError,
  ],
  [/^Widgets cannot be edited\.?$/, WidgetEditError],
];

function refusalClass(
  code: string,
  msg: string,
): (new (init: ApiErrorInit) => ApiError) | undefined {
  if (code === "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED") return MessageMoveWindowError;
  if (code !== "BAD_REQUEST") return undefined;
  return REFUSALS.find(([words]) => words.test(msg))?.[1];
}

/** The request never got a usable answer: connection refused or reset, timeout, non-JSON body. */
export class NetworkError extends Error {
  override readonly name: string = "NetworkError";
  readonly endpoint: string;
  /** HTTP status when a response arrived but could not be read as JSON. */
  readonly status: number | undefined;

  constructor(message: string, init: { endpoint: string; status?: number; cause?: unknown }) {
    super(`${init.endpoint}: ${message}`, { cause: init.cause });
    this.endpoint = init.endpoint;
    this.status = init.status;
  }
}

/** A call's arguments failed validation before anything was sent. */
export class InvalidArgumentError extends TypeError {
  override readonly name = "InvalidArgumentError";
  readonly endpoint: string;
  readonly parameter: string;

  constructor(endpoint: string, parameter: string, problem: string) {
    super(`${endpoint}: parameter "${parameter}" ${problem}`);
    this.endpoint = endpoint;
    this.parameter = parameter;
  }
}

/** The server's success body did not have the shape the contract promises. */
export class ResponseShapeError extends Error {
  override readonly name = "ResponseShapeError";
  constructor(endpoint: string, problem: string) {
    super(`${endpoint}: unexpected response: ${problem}`);
  }
}

/** Codes after which retrying cannot help: the credentials or the account are gone. */
export const FATAL_CODES: ReadonlySet<string> = new Set([
  "INVALID_API_KEY",
  "USER_DEACTIVATED",
  "REALM_DEACTIVATED",
  "UNAUTHORIZED",
]);

export function isFatal(error: unknown): boolean {
  return error instanceof ApiError && (FATAL_CODES.has(error.code) || error.status === 401);
}

/**
 * The TLS handshake with the server failed on a certificate (unknown CA, expired, wrong name, a
 * client certificate required or refused). Retrying cannot help: the settings must change, and
 * `fix` says which.
 */
export class CertificateError extends NetworkError {
  override readonly name = "CertificateError";
  /** What is wrong, e.g. "the server's certificate is signed by an unknown certificate authority". */
  readonly problem: string;
  /** What to change. */
  readonly fix: string;

  constructor(
    problem: string,
    fix: string,
    init: { endpoint: string; status?: number; cause?: unknown },
  ) {
    super(`${problem}. ${fix}`, init);
    this.problem = problem;
    this.fix = fix;
  }
}
