// Navigation views on the wire: the personal views shown in (or hidden from) the sidebar.
import { z } from "zod";
import { bool, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

/** A navigation view: `fragment` is its unique URL hash target; `name` labels custom views. */
export const navigationView = z.looseObject({
  fragment: str,
  is_pinned: bool,
  name: z.string().nullable().optional(),
});
export type NavigationView = z.infer<typeof navigationView>;

/** POST /navigation_views: adds a view; a blank or already used fragment is refused. */
export const add = endpoint({
  method: "POST",
  path: "/navigation_views",
  params: () =>
    z.object({
      fragment: str,
      is_pinned: bool,
      name: z.string().nullable().optional(),
    }),
  response: () => z.looseObject({}),
  idempotent: false,
});

export const navigationViewsEndpoints = { add } as const;
