// Who may click a card: the `allow` rules (roles, a list of users, the asker) checked against the clicker, and said in words when refused.
import type { Directory } from "../context/directory.js";
import { describeRoles } from "../commands/help.js";
import type { Allow } from "../model/cards.js";

/** The user who clicked, as the check needs them. */
export interface Clicker {
  userId: number;
  email: string;
}

const isEmpty = (allow: Allow | undefined): boolean =>
  allow === undefined || (!allow.roles?.length && !allow.users?.length && allow.asker !== true);

/** Whether `allow` admits `who` (`askerId` sent the message the card answers). */
export async function admits(
  allow: Allow | undefined,
  who: Clicker,
  askerId: number,
  directory: Directory,
): Promise<boolean> {
  if (isEmpty(allow)) return true;
  const rules = allow!;
  if (rules.asker === true && who.userId === askerId) return true;
  const email = who.email.toLowerCase();
  if (
    rules.users?.some((u) => (typeof u === "number" ? u === who.userId : u.toLowerCase() === email))
  )
    return true;
  if (rules.roles?.length) {
    const user = await directory.user(who.userId).catch(() => undefined);
    if (user && rules.roles.includes(user.role as never)) return true;
  }
  return false;
}

/** Who `allow` admits, in words (`the person who asked, or administrators and owners`). */
export function describeAllow(allow: Allow | undefined): string {
  if (isEmpty(allow)) return "everyone";
  const parts: string[] = [];
  if (allow!.asker) parts.push("the person who asked");
  if (allow!.roles?.length) parts.push(describeRoles(allow!.roles));
  const n = allow!.users?.length ?? 0;
  if (n > 0) parts.push(n === 1 ? "one listed person" : `the ${n} listed people`);
  return parts.join(", or ");
}
