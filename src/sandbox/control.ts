// The `/sandbox/*` control routes: fault injection, forced queue expiry and the clock, over HTTP.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ManualClock, type Clock } from "./clock.js";
import { sendJson } from "./handler.js";
import type { FaultInjector } from "./faults.js";
import type { QueueRegistry } from "./queues.js";

export interface ControlTargets {
  faults: FaultInjector;
  queues: QueueRegistry;
  clock: Clock;
  /** Expires queues by ID or by owner; all queues when neither is given. */
  expireQueues(filter?: { queueId?: string; userId?: number }): string[];
  /** When set, every control request must carry `Authorization: Bearer <token>`. */
  token?: string;
}

/** Whether the request carries the control token (compared in constant time). */
function hasToken(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Whether a listen address is loopback only (where the control routes need no token). */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error("the body must be a JSON object");
  return parsed as Record<string, unknown>;
}

/**
 * Handles `/sandbox/...`: `POST /sandbox/faults` (a fault rule as JSON) → `{id}`;
 * `GET /sandbox/faults`; `DELETE /sandbox/faults[/<id>]`; `POST /sandbox/queues/expire`
 * (`{queue_id?, user_id?}`) → `{expired}`; `POST /sandbox/clock/advance` (`{ms}`, manual clock only).
 */
export async function handleControl(
  targets: ControlTargets,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  if (!url.pathname.startsWith("/sandbox/")) return false;
  const route = `${req.method} ${url.pathname.replace(/\/+$/, "")}`;
  const ok = (body: Record<string, unknown> = {}): void =>
    sendJson(res, 200, { result: "success", msg: "", ...body });
  if (targets.token !== undefined && !hasToken(req, targets.token)) {
    sendJson(res, 401, {
      result: "error",
      code: "UNAUTHORIZED",
      msg: `${route} needs the sandbox control token: "Authorization: Bearer <token>" (printed when the sandbox started)`,
    });
    return true;
  }
  try {
    const faultId = /^DELETE \/sandbox\/faults\/(\d+)$/.exec(route);
    if (faultId) {
      if (!targets.faults.remove(Number(faultId[1]))) throw new Error(`no fault ${faultId[1]}`);
      ok();
    } else if (route === "POST /sandbox/faults") {
      ok({ id: targets.faults.add(await readJson(req)) });
    } else if (route === "GET /sandbox/faults") {
      ok({ faults: targets.faults.list() });
    } else if (route === "DELETE /sandbox/faults") {
      targets.faults.clear();
      ok();
    } else if (route === "POST /sandbox/queues/expire") {
      const body = await readJson(req);
      const expired = targets.expireQueues({
        queueId: typeof body.queue_id === "string" ? body.queue_id : undefined,
        userId: typeof body.user_id === "number" ? body.user_id : undefined,
      });
      ok({ expired });
    } else if (route === "POST /sandbox/clock/advance") {
      const body = await readJson(req);
      if (!(targets.clock instanceof ManualClock))
        throw new Error("the sandbox runs on the real clock; start it with a ManualClock");
      if (typeof body.ms !== "number" || body.ms < 0) throw new Error("ms must be a number ≥ 0");
      void targets.clock.advance(body.ms);
      ok({ now: targets.clock.now() });
    } else {
      return false;
    }
  } catch (error) {
    sendJson(res, 400, {
      result: "error",
      code: "BAD_REQUEST",
      msg: `Sandbox control ${route}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return true;
}
