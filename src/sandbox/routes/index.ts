// Every sandbox route, in one list the request handler matches against.
import type { Route } from "../route.js";
import { channelRoutes } from "./channels.js";
import { eventRoutes } from "./events.js";
import { messageRoutes } from "./messages.js";
import { deleteRoutes } from "./deletes.js";
import { narrowRoutes } from "./narrow.js";
import { reactionRoutes } from "./reactions.js";
import { reportRoutes } from "./report.js";
import { scheduledRoutes } from "./scheduled.js";
import { serverRoutes } from "./server.js";
import { uploadRoutes } from "./uploads.js";
import { authRoutes } from "./auth.js";
import { navigationRoutes } from "./navigation.js";
import { pushRoutes } from "./push.js";
import { realmRoutes } from "./realm.js";
import { subscriptionPropertyRoutes } from "./subscription-properties.js";
import { userRoutes } from "./users.js";
import { typingRoutes } from "./typing.js";
import { submessageRoutes } from "./submessages.js";

export const routes: Route[] = [
  ...eventRoutes,
  ...messageRoutes,
  ...deleteRoutes,
  ...narrowRoutes,
  ...reactionRoutes,
  ...reportRoutes,
  ...scheduledRoutes,
  ...uploadRoutes,
  ...channelRoutes,
  ...serverRoutes,
  ...userRoutes,
  ...realmRoutes,
  ...subscriptionPropertyRoutes,
  ...navigationRoutes,
  ...pushRoutes,
  ...authRoutes,
  ...typingRoutes,
  ...submessageRoutes,
];
