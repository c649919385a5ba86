/**
 * The business's portal people (Business API 4.3 people, 5.6): added within the plan's employee
 * accounts, changed, removed, their passwords; and a person's sign-in and sessions. The account
 * keeps its owner: no change to people may leave it without one.
 */
import { EMAIL_TAKEN, emailTakenMessage } from "../../../src/domain/emails.ts";
import { reject } from "../../../src/runtime/actor.ts";
import { ok, UNAUTHENTICATED } from "./accepted.ts";
import type { Business, BusinessCommand, Staff, StaffChanges } from "./types.ts";
import { accessOf } from "./views.ts";

type PeopleCommand = Extract<
  BusinessCommand,
  { kind: "add_staff" | "change_password" | "change_staff" | "remove_staff" }
>;

type StaffSignInCommand = Extract<
  BusinessCommand,
  { kind: "authenticate_staff" | "staff_for_login" }
>;

/** spec: business 5.6: the account has an owner; no change to people may leave it without one. */
function ownerProtected(what: string) {
  return reject("owner_protected", `the business must keep its owner: ${what}`);
}

export function decidePeople(state: Business, command: PeopleCommand, now: number) {
  switch (command.kind) {
    case "add_staff":
      return addStaff(state, command, now);
    case "change_password": {
      const staff = state.staff.find((s) => s.id === command.staff_id);
      // spec: business 5.6: a person removed meanwhile is signed out, as by a change meanwhile.
      if (!staff) {
        return reject("unauthenticated", "the session was signed out: the person was removed");
      }
      // spec: business 5: a change signs the person's other sessions out. One checked under an
      // epoch that has moved since (another session changed it meanwhile) is such a session's: it
      // would overwrite a password just set, and answer a session already ended.
      if (staff.session_epoch !== command.session_epoch) {
        return reject(
          "unauthenticated",
          "the session was signed out: the password was changed meanwhile; sign in again",
        );
      }
      return ok([{
        kind: "password_changed",
        staff_id: command.staff_id,
        password_hash: command.password_hash,
        // spec: business 4.3: other devices are signed out; the caller's stays in.
        ...(command.kept_session === undefined ? {} : { kept_session: command.kept_session }),
        by: command.by,
      }]);
    }
    case "change_staff":
      return changeStaff(state, command);
    case "remove_staff": {
      const staff = state.staff.find((s) => s.id === command.staff_id);
      if (!staff) return reject("not_found", `portal user not found: ${command.staff_id}`);
      if (staff.role === "owner") return ownerProtected("the owner cannot be removed");
      return ok([{
        kind: "staff_removed",
        staff_id: staff.id,
        email: staff.email,
        by: command.by,
      }]);
    }
  }
}

function addStaff(
  state: Business,
  command: Extract<BusinessCommand, { kind: "add_staff" }>,
  now: number,
) {
  const email = command.staff.email;
  if (state.staff.some((s) => s.email === email)) {
    return reject(EMAIL_TAKEN, emailTakenMessage("portal user", email));
  }
  if (command.max !== null && state.staff.length >= command.max) {
    return reject(
      "employee_limit_reached",
      `the ${state.plan} plan allows ${command.max} employee accounts: ${state.staff.length} exist`,
    );
  }
  return ok([{
    kind: "staff_added",
    staff: { ...command.staff, session_epoch: 0, created_at: now },
    by: command.by,
  }]);
}

function changeStaff(state: Business, command: Extract<BusinessCommand, { kind: "change_staff" }>) {
  const staff = state.staff.find((s) => s.id === command.staff_id);
  if (!staff) return reject("not_found", `portal user not found: ${command.staff_id}`);
  const { name, role } = command.changes;
  if (staff.role === "owner" && role !== undefined && role !== "owner") {
    return ownerProtected("the owner's role cannot change");
  }
  // Only what differs is a change: the same request again records nothing more.
  const changes: StaffChanges = {
    ...(name !== undefined && name !== staff.name ? { name } : {}),
    ...(role !== undefined && role !== staff.role ? { role } : {}),
  };
  if (Object.keys(changes).length === 0) return ok([]);
  return ok([{ kind: "staff_changed", staff_id: staff.id, changes, by: command.by }]);
}

/**
 * A session holds under the person's current epoch, or as the one the last password change kept
 * (spec: business 4.3: other devices signed out), whatever epoch it opened under.
 */
function sessionHolds(
  staff: Staff,
  command: Extract<StaffSignInCommand, { kind: "authenticate_staff" }>,
): boolean {
  if (staff.session_epoch === command.session_epoch) return true;
  return command.session_hash !== undefined && staff.kept_session === command.session_hash;
}

/** A person's sign-in: their login facts by e-mail, and whether a session still holds. */
export function decideStaffSignIn(state: Business, command: StaffSignInCommand) {
  switch (command.kind) {
    case "authenticate_staff": {
      const staff = state.staff.find((s) => s.id === command.staff_id);
      if (!staff || !sessionHolds(staff, command)) return UNAUTHENTICATED;
      return ok([], () => ({
        access: accessOf(state),
        principal: {
          as: "staff",
          staff_id: staff.id,
          role: staff.role,
          session_epoch: staff.session_epoch,
          api_key_hash: state.api_key.hash,
          webhook_key_id: state.webhook_secret.key_id,
        },
      }));
    }
    case "staff_for_login": {
      const staff = state.staff.find((s) => s.email === command.email);
      if (!staff) return UNAUTHENTICATED;
      return ok([], () => ({
        staff_id: staff.id,
        password_hash: staff.password_hash,
        session_epoch: staff.session_epoch,
      }));
    }
  }
}
