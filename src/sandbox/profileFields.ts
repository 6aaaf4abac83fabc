// Custom profile fields: the realm's field definitions, value checks, and `profile_data` as clients see it.
import { badRequest } from "./errors.js";
import { renderMarkdown } from "./markdown.js";
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";

/** Field types as the server numbers them. */
export const PROFILE_FIELD_TYPES = {
  shortText: 1,
  longText: 2,
  select: 3,
  date: 4,
  url: 5,
  user: 6,
  externalAccount: 7,
  pronouns: 8,
} as const;

export interface ProfileField {
  id: number;
  name: string;
  type: number;
  hint: string;
}

/** Text fields are Markdown and get a `rendered_value`. */
const MARKDOWN_TYPES: ReadonlySet<number> = new Set([
  PROFILE_FIELD_TYPES.shortText,
  PROFILE_FIELD_TYPES.longText,
]);

/** The fields every sandbox realm has. */
export const SEED_PROFILE_FIELDS: readonly ProfileField[] = [
  { id: 1, name: "Phone number", type: PROFILE_FIELD_TYPES.shortText, hint: "" },
  { id: 2, name: "Biography", type: PROFILE_FIELD_TYPES.longText, hint: "What are you known for?" },
  { id: 3, name: "Birthday", type: PROFILE_FIELD_TYPES.date, hint: "" },
  { id: 4, name: "Website", type: PROFILE_FIELD_TYPES.url, hint: "" },
];

const fieldsByRealm = new WeakMap<Realm, Map<number, ProfileField>>();

/** The realm's custom profile fields by ID. */
export function profileFields(realm: Realm): Map<number, ProfileField> {
  let fields = fieldsByRealm.get(realm);
  if (!fields) {
    fields = new Map(SEED_PROFILE_FIELDS.map((f) => [f.id, { ...f }]));
    fieldsByRealm.set(realm, fields);
  }
  return fields;
}

/** Checks a value against its field's type; throws `BAD_REQUEST` naming the field. */
export function checkProfileValue(realm: Realm, fieldId: number, value: string): ProfileField {
  const field = profileFields(realm).get(fieldId);
  if (!field) throw badRequest(`Field id ${fieldId} not found.`);
  if (value === "") return field;
  if (field.type === PROFILE_FIELD_TYPES.date && !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw badRequest(`${field.name} is not a date`);
  if (field.type === PROFILE_FIELD_TYPES.url && !URL.canParse(value))
    throw badRequest(`${field.name} is not a URL`);
  if (field.type === PROFILE_FIELD_TYPES.shortText && value.length > 50)
    throw badRequest(`${field.name} is too long (limit: 50 characters)`);
  return field;
}

/** Stores a value; the empty string removes it. */
export function setProfileValue(user: SandboxUser, fieldId: number, value: string): void {
  if (value === "") user.profileData.delete(fieldId);
  else user.profileData.set(fieldId, value);
}

/** `profile_data`: field ID to `{ value }`, plus `rendered_value` for Markdown fields. */
export function profileDataView(
  realm: Realm,
  user: SandboxUser,
): Record<string, { value: string; rendered_value?: string }> {
  const fields = profileFields(realm);
  const out: Record<string, { value: string; rendered_value?: string }> = {};
  for (const [id, value] of user.profileData) {
    const field = fields.get(id);
    if (!field) continue;
    out[String(id)] = MARKDOWN_TYPES.has(field.type)
      ? { value, rendered_value: renderMarkdown(value, realm.mentionTargets) }
      : { value };
  }
  return out;
}
