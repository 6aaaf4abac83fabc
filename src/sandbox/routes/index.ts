// Every sandbox route, in one list the request handler matches against.
import type { Route } from "../route.js";
import { eventRoutes } from "./events.js";
import { messageRoutes } from "./messages.js";
import { userRoutes } from "./users.js";

export const routes: Route[] = [...eventRoutes, ...messageRoutes, ...userRoutes];
