/**
 * The request a piece of work comes from, carried with the work as it goes on (an async
 * context), so that what follows it (the actor's change, a reactor's asks, an outbound event)
 * can name it in its log lines without every function taking it as a parameter.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<string | undefined>();

/** Runs `fn` as the work of request `requestId` (undefined: of no request). */
export function inRequest<T>(requestId: string | undefined, fn: () => T): T {
  return scope.run(requestId, fn);
}

/** The id of the request the current work comes from, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}

/** `{request_id}` of the current request, to spread into a record it causes; `{}` for none. */
export function causedBy(): { request_id?: string } {
  const id = scope.getStore();
  return id === undefined ? {} : { request_id: id };
}
