// Sandbox route for POST /navigation_views, and the per-user navigation views it stores.
import { endpoints } from "../../api/index.js";
import type { NavigationView } from "../../api/navigation.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import { badRequest } from "../errors.js";
import { notifyUsers } from "../notify.js";

/** The server's BUILT_IN_VIEW_FRAGMENTS: views every client has, which users only pin or unpin. */
const BUILT_IN_VIEW_FRAGMENTS = new Set([
  "inbox",
  "recent",
  "feed",
  "drafts",
  "narrow/has/reaction/sender/me",
  "narrow/is/mentioned",
  "narrow/is/starred",
  "scheduled",
  "reminders",
]);

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
    const name = params.name === null || params.name === undefined ? undefined : params.name.trim();
    if (name === "") throw badRequest("name cannot be blank");
    // As the server's add_navigation_view: built-in views take no name, custom views need one,
    // and neither a fragment nor a name may be used twice.
    if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) {
      if (name !== undefined) throw badRequest("Built-in views cannot have a custom name.");
    } else if (name === undefined) throw badRequest("Custom views must have a valid name.");
    const views = navigationViews(realm, user.userId);
    if (views.some((v) => v.fragment === fragment || (name !== undefined && v.name === name)))
      throw badRequest("Navigation view already exists.");
    const view: NavigationView = { fragment, is_pinned: params.is_pinned };
    if (params.name !== undefined) view.name = name ?? null;
    views.push(view);
    notifyUsers(realm, [user.userId], () => ({
      type: "navigation_view",
      op: "add",
      navigation_view: { ...view, name: view.name ?? null },
    }));
    return {};
  }),
];
