/**
 * A business's portal people (Business API 4.3 people, 5.6; CONTRACT "Sign-in and people"): the
 * owner or an admin invites, changes and removes them. The account keeps its owner: the owner's
 * role never changes, only the owner changes the owner's name, and the owner is never removed.
 */
import {
  asBusiness,
  businessActor,
  type Staff,
  type StaffChanges,
} from "../../../actors/platform/business/mod.ts";
import { EMAIL_TAKEN, emailTakenMessage } from "../../domain/emails.ts";
import { hashPassword, temporaryPassword } from "../../domain/secrets.ts";
import { stripUndefined } from "../../domain/objects.ts";
import type { Deps } from "../../environment.ts";
import { PLAN_EMPLOYEES_MAX } from "../../limits.ts";
import { orRefuse, refuse } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import { type BusinessPrincipal, principalName, type StaffPrincipal } from "../identity.ts";
import { businessOf } from "./businesses.ts";

/** The roles a person is invited with; the owner is made with the business. */
export type InvitedRole = "admin" | "coordinator";

export interface Invitation {
  readonly name: string;
  readonly email: string;
  readonly portal_role: InvitedRole;
}

/** A person just invited: their password is shown this once (kept hashed). */
export interface PersonInvited {
  readonly id: string;
  readonly email: string;
  readonly portal_role: InvitedRole;
  readonly password: string;
}

/** Invites a person, within the plan's employee accounts; their e-mail signs in to one portal. */
export async function invitePerson(
  deps: Pick<Deps, "runtime" | "requestId" | "passwordIterations">,
  caller: BusinessPrincipal,
  input: Invitation,
): Promise<PersonInvited> {
  if (await deps.runtime.lookup("staff_email", input.email)) {
    refuse(EMAIL_TAKEN, emailTakenMessage("portal user", input.email));
  }
  const password = temporaryPassword();
  const id = newId("usr");
  const businessId = caller.business.id;
  orRefuse(
    await deps.runtime.ask(businessActor, businessId, businessId, {
      kind: "add_staff",
      staff: {
        id,
        email: input.email,
        name: input.name,
        role: input.portal_role,
        password_hash: await hashPassword(password, deps.passwordIterations),
      },
      max: PLAN_EMPLOYEES_MAX[caller.business.plan],
      by: principalName(caller),
    }, { requestId: deps.requestId }),
  );
  return { id, email: input.email, portal_role: input.portal_role, password };
}

/**
 * Changes a person's name or role: only what differs is changed and audited; a new role applies
 * to their open sessions at once. Answers the person as they now stand.
 */
export async function changePerson(
  deps: Pick<Deps, "runtime" | "requestId">,
  caller: StaffPrincipal,
  id: string,
  changes: { readonly name?: string | undefined; readonly portal_role?: InvitedRole | undefined },
): Promise<Staff> {
  const target = await ownPerson(deps, caller, id);
  // spec: business 5.6: the account keeps its owner; an admin manages people, not the owner.
  if (target.role === "owner" && target.id !== caller.staff_id) {
    refuse("owner_protected", "only the owner changes the owner's details");
  }
  const staffChanges: StaffChanges = stripUndefined({
    name: changes.name,
    role: changes.portal_role,
  });
  const b = asBusiness(orRefuse(
    await deps.runtime.ask(businessActor, caller.business.id, caller.business.id, {
      kind: "change_staff",
      staff_id: target.id,
      changes: staffChanges,
      by: principalName(caller),
    }, { requestId: deps.requestId }),
  ));
  const changed = b.staff.find((s) => s.id === target.id);
  if (!changed) refuse("not_found", `portal person not found: ${target.id}`);
  return changed;
}

/** Removes a person: they can no longer sign in, and every session they hold is refused. */
export async function removePerson(
  deps: Pick<Deps, "runtime" | "requestId">,
  caller: StaffPrincipal,
  id: string,
): Promise<void> {
  const target = await ownPerson(deps, caller, id);
  orRefuse(
    await deps.runtime.ask(businessActor, caller.business.id, caller.business.id, {
      kind: "remove_staff",
      staff_id: target.id,
      by: principalName(caller),
    }, { requestId: deps.requestId }),
  );
}

/** A portal person of the caller's own business; another business's person is not found. */
async function ownPerson(
  deps: Pick<Deps, "runtime">,
  caller: BusinessPrincipal,
  id: string,
): Promise<Staff> {
  const person = (await businessOf(deps.runtime, caller.business.id)).staff.find((s) =>
    s.id === id
  );
  if (!person) refuse("not_found", `portal person not found: ${id}`);
  return person;
}
