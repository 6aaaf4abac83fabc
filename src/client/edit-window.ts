// The realm's message edit window as a client's event queue learned it: from POST /register, kept current by realm events.

/**
 * The real servers' default `message_content_edit_limit_seconds` (zerver/models/realms.py:
 * `DEFAULT_MESSAGE_CONTENT_EDIT_LIMIT_SECONDS`), assumed until the registration says otherwise.
 */
export const DEFAULT_EDIT_LIMIT_SECONDS = 600;

/** Each client's window: seconds, or null for no limit (editing turned off counts as 0). */
const windowOfClient = new WeakMap<object, number | null>();

/** Reads the edit rules of a register response (`realm_*` fields, fetched with `realm`). */
export function learnEditWindow(api: object, registration: Record<string, unknown>): void {
  const allowed = registration.realm_allow_message_editing;
  const limit = registration.realm_message_content_edit_limit_seconds;
  if (allowed === false) windowOfClient.set(api, 0);
  else if (limit === null || (typeof limit === "number" && limit >= 0))
    windowOfClient.set(api, limit === 0 ? null : limit);
}

/**
 * Applies a `realm` event that changes the edit rules: `op: "update_dict"` with
 * `message_content_edit_limit_seconds` (null: no limit) or `allow_message_editing` in `data`.
 */
export function applyRealmEvent(api: object, event: { op?: unknown; data?: unknown }): void {
  if (event.op !== "update_dict" || typeof event.data !== "object" || event.data === null) return;
  const data = event.data as Record<string, unknown>;
  if (data.allow_message_editing === false) return void windowOfClient.set(api, 0);
  const limit = data.message_content_edit_limit_seconds;
  if (limit === null) windowOfClient.set(api, null);
  else if (typeof limit === "number" && limit >= 0) windowOfClient.set(api, limit || null);
  else if (data.allow_message_editing === true && windowOfClient.get(api) === 0)
    windowOfClient.delete(api);
}

/**
 * Seconds after posting during which `api`'s messages may still be edited: null for no limit,
 * 0 when editing is off, `DEFAULT_EDIT_LIMIT_SECONDS` while nothing was learned.
 */
export function editWindowOf(api: object): number | null {
  const known = windowOfClient.get(api);
  return known === undefined ? DEFAULT_EDIT_LIMIT_SECONDS : known;
}
