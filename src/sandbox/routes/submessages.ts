// Sandbox route for POST /submessage: poll votes, todo strikes and other widget data attached to a message.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { addSubmessage } from "../submessages.js";
import { visibleMessage } from "./messages.js";

export const submessageRoutes: Route[] = [
  route(endpoints.messages.addSubmessage, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    addSubmessage(realm, user, message, params.msg_type, params.content);
    return {};
  }),
];
