/**
 * What a live page's credential rests on (a board's WebSocket): the subjects whose changes may end
 * it, so the page checks it again at once.
 */
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { SESSION_TENANT, sessionActor } from "../../../actors/platform/session.ts";
import { subjectOf } from "../../bus/bus.ts";
import { sha256Hex } from "../../domain/secrets.ts";
import type { Environment } from "../../http/context.ts";
import { STAFF_TOKEN_PREFIX } from "./principal.ts";

/**
 * spec: business 4.3 (a rotated key is invalid at once), 5.5 (revocable): the credential is
 * checked again when the business account changes (keys, passwords, the platform switch) and
 * when the staff session it names does (signed out, expired), not minutes later.
 */
export function credentialSubjects(
  env: Pick<Environment, "runtime">,
  tenant: string,
  key: string,
): string[] {
  const prefix = env.runtime.busPrefix;
  const subjects = [subjectOf(prefix, tenant, businessActor.type, tenant)];
  const token = key.trim();
  if (token.startsWith(STAFF_TOKEN_PREFIX)) {
    subjects.push(subjectOf(prefix, SESSION_TENANT, sessionActor.type, sha256Hex(token)));
  }
  return subjects;
}
