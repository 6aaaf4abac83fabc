// Sandbox route for POST /navigation_views, and the per-user navigation views it stores.
import { endpoints } from "../../api/index.js";
import type { NavigationView } from "../../api/navigation.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import { badRequest } from "../errors.js";
import { notifyUsers } from "../notify.js";

const byRealm = new WeakMap<Realm, Map<number, NavigationView[]>>();

/** A user's navigation views, in the order they were added. */
export function navigationViews(realm: Realm, userId: number): NavigationView[] {
  let all = byRealm.get(realm);
  if (!all) {
    all = new Map();
    byRealm.set(realm, all);
  }
  let views = all.get(userId);
  if (!views) {
    views = [];
    all.set(userId, views);
  }
  return views;
}

export const navigationRoutes: Route[] = [
  route(endpoints.navigationViews.add, ({ realm, user, params }) => {
    const fragment = params.fragment.trim();
    if (fragment === "") throw badRequest("fragment cannot be blank");
    const views = navigationViews(realm, user.userId);
    if (views.some((v) => v.fragment === fragment))
      throw badRequest(`Navigation view already exists: '${fragment}'`);
    const view: NavigationView = { fragment, is_pinned: params.is_pinned };
    if (params.name !== undefined) view.name = params.name;
    views.push(view);
    notifyUsers(realm, [user.userId], () => ({
      type: "navigation_view",
      op: "add",
      navigation_view: { ...view, name: view.name ?? null },
    }));
    return {};
  }),
];
