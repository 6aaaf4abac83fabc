// Sandbox route for POST /users/me/subscriptions/properties: personal settings of subscribed channels.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { badRequest } from "../errors.js";
import { notifyUsers } from "../notify.js";
import { applyPropertyChange, HEX_COLOR } from "../subscriptionProperties.js";

export const subscriptionPropertyRoutes: Route[] = [
  route(endpoints.subscriptions.updateProperties, ({ realm, user, params }) => {
    // Check every change before applying any, so a refused request changes nothing.
    for (const change of params.subscription_data) {
      const channel = realm.channels.get(change.stream_id);
      if (!channel) throw badRequest(`Invalid channel ID ${change.stream_id}`);
      if (!channel.subscribers.has(user.userId))
        throw badRequest(`Not subscribed to channel ID ${change.stream_id}`);
      if (change.property === "color" && !HEX_COLOR.test(change.value))
        throw badRequest(`color is not a valid hex color code: '${change.value}'`);
    }
    for (const change of params.subscription_data) {
      const props = realm.subscriptionProperties.of(user.userId, change.stream_id);
      for (const [property, value] of applyPropertyChange(props, change.property, change.value)) {
        notifyUsers(realm, [user.userId], () => ({
          type: "subscription",
          op: "update",
          stream_id: change.stream_id,
          property,
          value,
        }));
      }
    }
    return {};
  }),
];
