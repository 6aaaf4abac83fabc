// A sandbox route: the wire endpoint it plays and the function that answers it.
import type { z } from "zod";
import type { Endpoint } from "../api/endpoint.js";
import type { UploadedFile } from "./body.js";
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";

export interface RouteContext<P, U extends SandboxUser | undefined = SandboxUser> {
  realm: Realm;
  /** The authenticated requester; undefined only on routes whose endpoint allows no credentials. */
  user: U;
  params: P;
  files: UploadedFile[];
  /** The sending client's name, from the User-Agent as the server reads it (`ZulipMobile`, `topicbot`, `Unspecified`). */
  clientName: string;
  /** Aborts when the client goes away (long-polls end early). */
  signal: AbortSignal;
}

/** A non-JSON answer, such as a downloaded file. */
export class RawResponse {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: Buffer | string,
  ) {}
}

export type RouteResult = Record<string, unknown> | RawResponse;

export interface Route {
  endpoint: Endpoint;
  handle(
    ctx: RouteContext<Record<string, unknown>, SandboxUser | undefined>,
  ): RouteResult | Promise<RouteResult>;
}

/** Declares how the sandbox answers one authenticated endpoint; params arrive decoded and validated. */
export function route<P extends z.ZodObject, R extends z.ZodType>(
  endpoint: Endpoint<P, R>,
  handle: (ctx: RouteContext<z.output<P>, SandboxUser>) => RouteResult | Promise<RouteResult>,
): Route {
  return { endpoint, handle: handle as Route["handle"] };
}

/** Like `route`, for endpoints that may be called without credentials. */
export function publicRoute<P extends z.ZodObject, R extends z.ZodType>(
  endpoint: Endpoint<P, R>,
  handle: (
    ctx: RouteContext<z.output<P>, SandboxUser | undefined>,
  ) => RouteResult | Promise<RouteResult>,
): Route {
  return { endpoint, handle: handle as Route["handle"] };
}
