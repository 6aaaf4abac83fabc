// Sandbox route for deleting a message: DELETE /messages/{id} (the rules and the event in deletes.ts).
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { checkDelete, deleteMessage } from "../deletes.js";
import { visibleMessage } from "./messages.js";

export const deleteRoutes: Route[] = [
  route(endpoints.messages.remove, ({ realm, user, params }) => {
    const message = visibleMessage(realm, user, params.message_id);
    checkDelete(realm, user, message);
    deleteMessage(realm, message);
    return {};
  }),
];
