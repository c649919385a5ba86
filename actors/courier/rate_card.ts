/**
 * One rate card of a courier (courier 2.4, 4.2): an append-only list of versions. A published
 * version can never be edited or deleted, so there is no command that could: a change is a new
 * version from its `effective_from` (in force from then, never before it was published), whose
 * omitted terms carry over from the latest version.
 * The currency is fixed by version 1. Tenant: the courier business id; id: `rc_...`.
 */
import {
  accept,
  type ActorDefinition,
  type Decision,
  reject,
  unreachable,
} from "../../src/runtime/actor.ts";
import {
  type RateCardTerms,
  type RateCardVersion,
  sameTerms,
} from "../../src/courier/rules/rate_card.ts";
import { STATE_BYTES_MAX } from "../../src/limits.ts";

/** A card's versions all live in its state: five years of monthly changes; then a new card. */
export const RATE_CARD_VERSIONS_MAX = 60;
/** Room left under STATE_BYTES_MAX for the runtime's record envelope (timers, indexes, seq). */
const RATE_CARD_BYTES_MAX = STATE_BYTES_MAX - 4_000;

export interface RateCard {
  readonly id: string;
  readonly business_id: string;
  /** The name of the latest version. */
  readonly name: string;
  /** Fixed by version 1. */
  readonly currency: string;
  readonly created_at: number;
  /** In publication order: `versions[n - 1].version === n`. */
  readonly versions: readonly RateCardVersion[];
  /**
   * The versions published under an Idempotency-Key, by key: what was sent (a digest) and the
   * version it published, so the key names one request (courier 4.2). Absent on older cards.
   */
  readonly requests?: Readonly<Record<string, KeyedPublication>>;
}

/** A version published under an Idempotency-Key: the request's digest and the version. */
export interface KeyedPublication {
  readonly digest: string;
  readonly version: number;
}

/** The Idempotency-Key a publication was sent under and the digest of its body. */
export interface PublicationRequest {
  readonly key: string;
  readonly digest: string;
}

export type RateCardState = RateCard | null;

/** Terms a later version may send; the currency may be sent but never changed. */
export type TermsChanges = Partial<RateCardTerms>;

export type RateCardCommand =
  | {
    kind: "publish_first";
    id: string;
    business_id: string;
    name: string;
    effective_from: number;
    terms: RateCardTerms;
    by: string;
    request?: PublicationRequest;
  }
  | {
    kind: "publish_version";
    effective_from: number;
    /** Omitted: the latest version's name. */
    name?: string;
    changes: TermsChanges;
    by: string;
    request?: PublicationRequest;
  }
  | { kind: "get" };

export type RateCardEvent =
  | {
    kind: "rate_card_created";
    id: string;
    business_id: string;
    currency: string;
    at: number;
    by: string;
  }
  | {
    kind: "version_published";
    version: RateCardVersion;
    by: string;
    request?: PublicationRequest;
  };

export type RateCardReply = RateCard | undefined;

type D = ReturnType<typeof accept<RateCardState, RateCardEvent, RateCardReply>>;

function ok(events: RateCardEvent[]): D {
  return accept(events, (s) => s ?? undefined);
}

function decide(state: RateCardState, command: RateCardCommand | { kind: "timer" }, ctx: {
  now: number;
}) {
  if (command.kind === "publish_first") {
    if (state !== null) {
      return keyedAgain(state, command.request) ??
        reject("already_exists", `rate card exists: ${command.id}`);
    }
    const version: RateCardVersion = {
      card_id: command.id,
      version: 1,
      name: command.name,
      effective_from: command.effective_from,
      published_at: ctx.now,
      terms: command.terms,
    };
    return checked(state, [
      {
        kind: "rate_card_created",
        id: command.id,
        business_id: command.business_id,
        currency: command.terms.currency,
        at: ctx.now,
        by: command.by,
      },
      { kind: "version_published", version, by: command.by, ...keyed(command.request) },
    ]);
  }
  if (state === null) return reject("not_found", "rate card not found");
  switch (command.kind) {
    case "get":
    case "timer":
      return ok([]);
    case "publish_version":
      return publishVersion(state, command, ctx.now);
    default:
      return unreachable(command);
  }
}

function publishVersion(
  state: RateCard,
  command: Extract<RateCardCommand, { kind: "publish_version" }>,
  now: number,
) {
  const again = keyedAgain(state, command.request);
  if (again) return again;
  const latest = state.versions.at(-1);
  if (!latest) throw new Error(`rate card ${state.id} has no version`);
  if (command.changes.currency !== undefined && command.changes.currency !== state.currency) {
    return reject(
      "rate_card_currency_fixed",
      `a rate card keeps the currency of version 1 (${state.currency}); publish a new rate card for another: ${command.changes.currency}`,
    );
  }
  // spec: courier 4.2: versions follow each other; one from before the latest would rewrite which
  // version was in force. One from the same instant supersedes it (the later version wins).
  if (command.effective_from < latest.effective_from) {
    return reject(
      "effective_from_before_latest",
      `effective_from must not be before version ${latest.version}'s effective_from ${
        new Date(latest.effective_from).toISOString()
      }: ${new Date(command.effective_from).toISOString()}`,
      { latest_version: latest.version },
    );
  }
  // A version the same as the latest would only bury the one a client was priced on. Judged here,
  // in the card's own turn: judged on a read before it, a retry racing its first send (or any two
  // sent at once) published the same version twice.
  const terms = { ...latest.terms, ...command.changes };
  if ((command.name ?? latest.name) === latest.name && sameTerms(terms, latest.terms)) {
    const message =
      `nothing to publish: every term and the name are those of version ${latest.version}`;
    return reject("validation_failed", `invalid request: body: ${message}`, {
      errors: [{ path: "body", message }],
    });
  }
  if (state.versions.length >= RATE_CARD_VERSIONS_MAX) {
    return reject(
      "rate_card_full",
      `a rate card holds at most ${RATE_CARD_VERSIONS_MAX} versions; publish a new rate card: ${state.id}`,
    );
  }
  const version: RateCardVersion = {
    card_id: state.id,
    version: latest.version + 1,
    name: command.name ?? latest.name,
    effective_from: command.effective_from,
    published_at: now,
    terms,
  };
  return checked(state, [{
    kind: "version_published",
    version,
    by: command.by,
    ...keyed(command.request),
  }]);
}

function keyed(request: PublicationRequest | undefined) {
  return request === undefined ? {} : { request };
}

/**
 * spec: courier 4.2: a publication sent again under its Idempotency-Key publishes nothing: the
 * same request is answered the card (the flow answers the version it published), another request
 * under the key is refused. Judged in the card's turn, so two sent at once are told apart. Null
 * when the key published nothing here yet.
 */
function keyedAgain(
  state: RateCard,
  request: PublicationRequest | undefined,
): Decision<RateCardState, RateCardEvent, RateCardReply> | null {
  const kept = request === undefined ? undefined : state.requests?.[request.key];
  if (request === undefined || kept === undefined) return null;
  if (kept.digest === request.digest) return ok([]);
  return reject(
    "reference_conflict",
    `Idempotency-Key already published version ${kept.version} of rate card ${state.id} ` +
      `from another request: ${request.key}`,
  );
}

/** Refuses, with a stable code, a change that would not fit in one stored state. */
function checked(state: RateCardState, events: RateCardEvent[]) {
  const next = events.reduce(evolve, state);
  const bytes = JSON.stringify(next).length;
  if (bytes > RATE_CARD_BYTES_MAX) {
    return reject(
      "rate_card_full",
      `this version does not fit beside the card's others; publish a new rate card: ${bytes} bytes`,
    );
  }
  return ok(events);
}

function evolve(state: RateCardState, event: RateCardEvent): RateCardState {
  if (event.kind === "rate_card_created") {
    return {
      id: event.id,
      business_id: event.business_id,
      name: "",
      currency: event.currency,
      created_at: event.at,
      versions: [],
    };
  }
  if (state === null) throw new Error(`${event.kind} before rate_card_created`);
  switch (event.kind) {
    case "version_published":
      if (event.version.version !== state.versions.length + 1) {
        throw new Error(`rate card ${state.id}: version ${event.version.version} out of order`);
      }
      return {
        ...state,
        name: event.version.name,
        versions: [...state.versions, event.version],
        ...(event.request === undefined ? {} : {
          requests: {
            ...state.requests,
            [event.request.key]: { digest: event.request.digest, version: event.version.version },
          },
        }),
      };
    default:
      return unreachable(event);
  }
}

export const rateCardActor: ActorDefinition<
  RateCardState,
  RateCardCommand,
  RateCardEvent,
  RateCardReply
> = {
  type: "rate_card",
  version: 1,
  initial: null,
  decide,
  evolve,
  // Nothing on a rate card is secret: projections get the whole card.
  project: (s) => s,
};

/** The card a `get`-like reply carries; a reply of another shape is a programming error. */
export function asRateCard(reply: RateCardReply): RateCard {
  if (!reply) throw new Error("expected the rate card in the reply");
  return reply;
}
