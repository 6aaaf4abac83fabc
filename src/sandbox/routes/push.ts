// Sandbox routes for mobile push: device token registration and the E2EE test notification.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { SandboxUser } from "../model.js";
import { badRequest, SandboxError } from "../errors.js";

/** A device registered for pushes; `pushAccountId` names it in the test notification. */
export interface PushDevice {
  token: string;
  appid: string;
  pushAccountId: number;
}

/** A test notification the simulated bouncer accepted. */
export interface SentTestNotification {
  userId: number;
  pushAccountId: number;
}

interface PushState {
  devices: Map<number, PushDevice[]>;
  sent: SentTestNotification[];
  nextAccountId: number;
}

const byRealm = new WeakMap<Realm, PushState>();

/** The realm's push state: devices by user ID and the test notifications delivered. */
export function pushState(realm: Realm): PushState {
  let state = byRealm.get(realm);
  if (!state) {
    state = { devices: new Map(), sent: [], nextAccountId: 1 };
    byRealm.set(realm, state);
  }
  return state;
}

/** The server's `@human_users_only`: push registration and tests are for people's devices. */
function humanUsersOnly(user: SandboxUser): void {
  if (user.isBot) throw badRequest("This endpoint does not accept bot requests.");
}

export const MAX_TOKEN_LENGTH = 4096;
/** Tokens the sandbox accepts: the characters APNs (hex) and FCM tokens are made of. */
const TOKEN_SHAPE = /^[A-Za-z0-9_:.-]+$/;

const BOUNCER_ERRORS = {
  ADMIN_ACTION_REQUIRED: {
    status: 400,
    msg: "Push notification configuration issue on server, contact the server administrator or retry later.",
  },
  FAILED_TO_CONNECT_BOUNCER: {
    status: 502,
    msg: "Network error while connecting to the push notification service.",
  },
  INTERNAL_SERVER_ERROR_ON_BOUNCER: {
    status: 502,
    msg: "Internal server error on the push notification service, retry later.",
  },
} as const;

export const pushRoutes: Route[] = [
  route(endpoints.push.addNativeDeviceToken, ({ realm, user, params }) => {
    humanUsersOnly(user);
    const { token, appid } = params;
    if (token === "" || token.length > MAX_TOKEN_LENGTH)
      throw badRequest("Empty or invalid length token");
    if (!TOKEN_SHAPE.test(token)) throw badRequest("Invalid token");
    if (appid.trim() === "") throw badRequest("Invalid appid");
    const state = pushState(realm);
    const devices = state.devices.get(user.userId) ?? [];
    const existing = devices.find((d) => d.token === token);
    if (existing) existing.appid = appid;
    else devices.push({ token, appid, pushAccountId: state.nextAccountId++ });
    state.devices.set(user.userId, devices);
    return {};
  }),

  route(endpoints.push.sendE2eeTestNotification, ({ realm, user, params }) => {
    humanUsersOnly(user);
    const state = pushState(realm);
    const targets = (state.devices.get(user.userId) ?? []).filter(
      (d) => params.push_account_id === undefined || d.pushAccountId === params.push_account_id,
    );
    if (targets.length === 0)
      throw new SandboxError("NO_ACTIVE_PUSH_DEVICE", "No active registered push device");
    const mode = realm.settings.pushBouncer;
    if (mode !== "ok") {
      const { status, msg } = BOUNCER_ERRORS[mode];
      throw new SandboxError(mode, msg, { status });
    }
    for (const device of targets)
      state.sent.push({ userId: user.userId, pushAccountId: device.pushAccountId });
    return {};
  }),
];
