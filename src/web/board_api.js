// The operations board's calls to the REST API, with the page's key.
import { API, state } from "./board_page.js";

export class ApiFailure extends Error {
  constructor(status, body) {
    super(body?.message ?? `request failed: HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? null;
  }
}

export async function api(method, path, body) {
  const headers = { "X-Business-API-Key": state.key, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(API + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok || !answer?.success) throw new ApiFailure(response.status, answer);
  return answer;
}

export function refused(e) {
  return e instanceof ApiFailure && (e.status === 401 || e.status === 403);
}
