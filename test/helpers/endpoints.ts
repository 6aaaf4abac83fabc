// The client's endpoint table as `METHOD /path` → `namespace.method`, for the coverage tests.
import { endpoints } from "topicbot/client";

export function clientMethods(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [ns, group] of Object.entries(endpoints))
    for (const [name, ep] of Object.entries(
      group as Record<string, { method: string; path: string }>,
    ))
      out.set(`${ep.method} ${ep.path}`, `${ns}.${name}`);
  return out;
}
