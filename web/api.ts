// The console page's link to `bot dev`: JSON actions with the session token, and the live event stream.

const token = new URLSearchParams(location.search).get("token") ?? "";

/** Calls a console action; throws the server's message when it answers with an error. */
export async function call<T = unknown>(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: {
      "x-console-token": token,
      ...(body === undefined ? {} : { "content-type": contentType }),
    },
    body:
      body === undefined
        ? undefined
        : contentType === "application/json"
          ? JSON.stringify(body)
          : (body as BodyInit),
  });
  const json = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new Error(json.error ?? `${method} ${path}: HTTP ${res.status}`);
  return json as T;
}

/** Opens the Server-Sent Events stream; `on` gets each event's type and parsed data. */
export function stream(
  types: readonly string[],
  on: (type: string, data: unknown) => void,
  onStatus: (open: boolean) => void,
): EventSource {
  const source = new EventSource(`/stream?token=${encodeURIComponent(token)}`);
  for (const type of types)
    source.addEventListener(type, (e) => on(type, JSON.parse((e as MessageEvent<string>).data)));
  source.onopen = () => onStatus(true);
  source.onerror = () => onStatus(false);
  return source;
}
