/**
 * An endpoint set (courier 3.1, 6.1; Business API 6): the events of a business that waited for an
 * endpoint go now, not at their next hourly try. The business account adds the item in the commit
 * that sets its webhook URL or billing endpoint (actors/platform/business/outbox.ts); this handler
 * makes the waiting events due after the commit, and the runtime's outbox sweep hands an item
 * over again after a crash.
 *
 * Idempotent: an event made due is due already, and one attempted since waits no more
 * (`endpoint_set` changes neither), so an item handed over twice makes each event due once.
 */
import { outboundEventActor, type Recipient } from "../../../actors/platform/outbound_event/mod.ts";
import type { Deps, Reactor } from "../../environment.ts";
import { ENDPOINT_SET_EVENTS_MAX } from "../../limits.ts";
import { ENDPOINT_SET_OUTBOX, type EndpointSetItem } from "../rules/endpoint_set.ts";
import { eventsWaitingForEndpoint } from "../queries/waiting_events.ts";

/** Events made due at once per page of the search for events waiting for an endpoint. */
const ENDPOINT_SET_PAGE = 200;

type EndpointDeps = Pick<Deps, "runtime" | "db" | "projected">;

/** Makes the waiting events of one endpoint set due now; answers how many were found waiting. */
export async function endpointSet(deps: EndpointDeps, item: EndpointSetItem): Promise<number> {
  let due = 0;
  for (const kind of item.recipients) {
    due += await attemptWaitingEvents(deps, item.business_id, { kind });
  }
  return due;
}

/**
 * A recipient has just set an endpoint: its events waiting for one are due now (courier 3.1), up
 * to ENDPOINT_SET_EVENTS_MAX of them; any beyond keep their hourly try. Found on the query side;
 * each event re-checks that it still waits (one due already is left as it is). Answers how many
 * were found.
 */
export async function attemptWaitingEvents(
  deps: EndpointDeps,
  tenant: string,
  recipient: Recipient,
): Promise<number> {
  const { runtime, db } = deps;
  // An event noted a moment before the endpoint was set as finding none is found too, not left
  // to its hour (the projections only: this runs as an outbox handling, which settle awaits).
  await deps.projected();
  let due = 0;
  let after = "";
  while (due < ENDPOINT_SET_EVENTS_MAX) {
    const ids = await eventsWaitingForEndpoint(db, tenant, recipient, {
      after,
      limit: ENDPOINT_SET_PAGE,
    });
    if (ids.length === 0) break;
    const answers = await Promise.all(
      ids.map((id) => runtime.ask(outboundEventActor, tenant, id, { kind: "endpoint_set" })),
    );
    due += answers.filter((a) => a.ok).length;
    after = ids.at(-1)!;
  }
  return due;
}

/** Hands each endpoint set to endpointSet; a failure leaves the item for the sweep. */
export function startEndpointSetOutbox(deps: EndpointDeps): Reactor {
  const release = deps.runtime.handleOutbox(ENDPOINT_SET_OUTBOX, async (i) => {
    await endpointSet(deps, i.payload as EndpointSetItem);
  });
  return {
    close() {
      release();
      return Promise.resolve();
    },
  };
}
