/**
 * Business API 5.6: "A changed API key, webhook secret or webhook address is recorded and e-mailed
 * to the account owner." The business's own committed events are the record (its audit trail);
 * this subscriber makes the e-mail of each such event, into the mail outbox (a mail_message whose
 * id is derived from the business and the event's place in its log), so one change is one e-mail
 * however often the change is heard. A repeated request that changes nothing commits no event and
 * sends nothing. The e-mail never holds a key or a secret: only the key's hint or the secret's id.
 * A changed billing endpoint (courier 6.1) is told as a changed webhook address is: billing events
 * go there instead of the webhook address.
 *
 * Nothing is lost on the way: the runtime publishes the business's commit at least once, a
 * recording that fails is tried again within the delivery (src/bus/retry.ts), and one still
 * failing is deferred (src/platform/reactors/deferred.ts).
 */
import {
  asBusiness,
  type Business,
  businessActor,
  type BusinessEvent,
  type Profile,
} from "../../../actors/platform/business/mod.ts";
import { type MailMessage, mailMessageActor } from "../../../actors/platform/mail_message.ts";
import type { ActorChange } from "../../bus/bus.ts";
import { type ReactorOptions, UnitReactor } from "../../bus/reactor.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import { type EgressPolicy, messageDisposition } from "../../outbound/egress.ts";

export interface OwnerNoticesOptions extends ReactorOptions {
  readonly runtime: ActorRuntime;
  /** The environment's egress (egressPolicyOf): the sandbox records e-mails refused. */
  readonly egress: EgressPolicy;
}

/** One change the owner is told of: the business event and its place in the business's log. */
export interface Notice {
  readonly business_id: string;
  readonly seq: number;
  readonly at: number;
  readonly event: BusinessEvent;
}

/** The outbox id of the e-mail of one business event. */
export function noticeIdOf(businessId: string, seq: number): string {
  return `${businessId}:security:${seq}`;
}

export class OwnerNotices extends UnitReactor<Notice> {
  readonly #runtime: ActorRuntime;
  readonly #egress: EgressPolicy;

  constructor(options: OwnerNoticesOptions) {
    super(options, {
      worker: "owner_notices",
      actorType: businessActor.type,
      unitsOf: noticesOf,
      work: (notice) => recordNotice(options.runtime, options.egress, notice),
      describe: (notice) => `security notice ${noticeIdOf(notice.business_id, notice.seq)}`,
    });
    this.#runtime = options.runtime;
    this.#egress = options.egress;
  }

  /** Records the e-mail of one notice to the owner, once; answers it. */
  record(notice: Notice): Promise<MailMessage> {
    return recordNotice(this.#runtime, this.#egress, notice);
  }
}

/** Records the e-mail of one notice to the owner, once; answers it. */
function recordNotice(
  runtime: ActorRuntime,
  egress: EgressPolicy,
  notice: Notice,
): Promise<MailMessage> {
  const e = notice.event;
  return mailOwner(runtime, egress, {
    business_id: notice.business_id,
    id: noticeIdOf(notice.business_id, notice.seq),
    cause: e.kind,
    at: notice.at,
    by: "by" in e ? e.by : "operator",
    ...securityNotice(e),
  });
}

/** One e-mail to a business's owner of a changed credential or address (Business API 5.6). */
export interface OwnerMail {
  readonly business_id: string;
  /** The mail's id: derived from the change, so one change is one e-mail however often heard. */
  readonly id: string;
  /** What it tells of (the change's event). */
  readonly cause: string;
  readonly at: number;
  /** Who made the change, as the audit trail names them. */
  readonly by: string;
  /** The change in a few words, the subject's end: `Your API key was changed`. */
  readonly what: string;
  /** What the change means now; a key's hint or a secret's id, never the key or the secret. */
  readonly detail: string;
}

/** Records the e-mail of one change to the business's owner, once; answers it. */
export async function mailOwner(
  runtime: ActorRuntime,
  egress: EgressPolicy,
  mail: OwnerMail,
): Promise<MailMessage> {
  const got = await runtime.read(businessActor, mail.business_id, mail.business_id, {
    kind: "get",
  });
  if (!got.ok) throw new Error(`business ${mail.business_id}: ${got.code}: ${got.message}`);
  const business = asBusiness(got.reply);
  const owner = business.staff.find((s) => s.role === "owner");
  if (!owner) throw new Error(`business ${business.id} has no owner`);
  const recorded = await runtime.ask(mailMessageActor, business.id, mail.id, {
    kind: "record",
    message: {
      id: mail.id,
      to: owner.email,
      cause: mail.cause,
      channel: "email",
      // spec: business 1.3: refused at the sender in the sandbox, and kept so.
      disposition: messageDisposition(egress, "email"),
      ...mailText(business, mail),
    },
  });
  if (!recorded.ok || !recorded.reply) {
    throw new Error(`e-mail ${mail.id}: ${recorded.ok ? "no reply" : recorded.message}`);
  }
  return recorded.reply;
}

/** The changes of a business's commit the owner is e-mailed about (Business API 5.6). */
export function noticesOf(change: ActorChange): Notice[] {
  if (change.type !== businessActor.type) return [];
  return change.events.flatMap(({ seq, at, event }) => {
    const e = event as BusinessEvent;
    const told = e.kind === "api_key_rotated" || e.kind === "webhook_secret_rotated" ||
      (e.kind === "profile_changed" && ADDRESSES.some((a) => e.changes[a.field] !== undefined));
    return told ? [{ business_id: change.id, seq, at, event: e }] : [];
  });
}

/** What changed, in the owner's words; a key's hint or a secret's id, never the key or secret. */
function securityNotice(e: BusinessEvent): { what: string; detail: string } {
  switch (e.kind) {
    case "api_key_rotated":
      return {
        what: "Your API key was changed",
        detail: `The new key ends in ${e.key.hint}. The previous key no longer works.`,
      };
    case "webhook_secret_rotated":
      return {
        what: "Your webhook signing secret was changed",
        detail: `The new secret's key id is ${e.secret.key_id}. Webhooks are signed with it ` +
          "from now on.",
      };
    case "profile_changed":
      return addressNotice(e.changes);
    default:
      throw new Error(`no security notice for ${e.kind}`);
  }
}

/**
 * Where the business's events go, each address a change of which the owner is told: the webhook
 * address (business 5.6) and the billing endpoint, which billing events go to instead (courier
 * 6.1): one changed sends them elsewhere just as much.
 */
const ADDRESSES = [
  {
    field: "webhook_url",
    name: "webhook address",
    set: "Webhooks now go to",
    removed: "The webhook address was removed: no webhooks are sent until one is set.",
  },
  {
    field: "billing_endpoint_url",
    name: "billing endpoint",
    set: "Billing events now go to",
    removed: "The billing endpoint was removed: billing events go to the webhook address.",
  },
] as const satisfies readonly {
  field: keyof Profile;
  name: string;
  set: string;
  removed: string;
}[];

/** What a change of the addresses says, one sentence for each address changed. */
function addressNotice(changes: Partial<Profile>): { what: string; detail: string } {
  const changed = ADDRESSES.filter((a) => changes[a.field] !== undefined);
  const names = changed.map((a) => a.name).join(" and ");
  return {
    what: `Your ${names} ${changed.length > 1 ? "were" : "was"} changed`,
    detail: changed.map((a) => {
      const url = changes[a.field];
      return url ? `${a.set} ${url}.` : a.removed;
    }).join(" "),
  };
}

/** Subject and text of the e-mail. */
function mailText(b: Business, mail: OwnerMail): { subject: string; text: string } {
  const when = new Date(mail.at).toISOString();
  const who = whoMade(b, mail.by);
  const unexpected = "If you did not expect this change, sign in to the portal, rotate the " +
    "integration key and the webhook secret, and check the webhook address and billing endpoint.";
  return {
    subject: `${b.profile.name}: ${mail.what}`,
    text: [`${mail.what} for ${b.profile.name} at ${when}, by ${who}.`, mail.detail, unexpected]
      .join("\n\n"),
  };
}

/** Who made a change, as the owner would know them. */
function whoMade(b: Business, by: string): string {
  if (by === "api_key") return "the integration API key";
  if (by === "operator") return "the service operator";
  if (by.startsWith("staff:")) {
    const person = b.staff.find((s) => `staff:${s.id}` === by);
    return person ? `${person.name} (${person.email})` : "a portal user since removed";
  }
  return by;
}
