/**
 * The charged entries' reactor (courier 2.6 rule 5): tells each charged entry what its account
 * booked (the `charged_entry` outbox, added in the account's commit: every entry, every resolved
 * conversion, every note on the entry it corrects), and resolves the reservations whose request
 * died before the account posted them (the `note_lapse` outbox, added when the entry's timer
 * finds one still held past NOTE_RESERVATION_LAPSE_MS: posted, it is counted; else released).
 * Every step is idempotent: an item handled twice changes nothing more.
 */
import { OutboxHandling } from "../../runtime/outbox_handling.ts";
import type { ActorRuntime } from "../../runtime/runtime.ts";
import type { OutboxItem } from "../../runtime/store.ts";
import {
  chargedEntryActor,
  chargedEntryId,
  countKey,
  type LapseItem,
  NOTE_LAPSE_OUTBOX,
} from "../../../actors/courier/charged_entry/mod.ts";
import {
  CHARGED_ENTRY_OUTBOX,
  type ChargedEntryItem,
  factsOf,
} from "../../../actors/courier/client_ledger/entry_outbox.ts";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import type { LedgerEntry } from "../rules/ledger.ts";

/** Feeds the charged entries and resolves lapsed reservations, until closed. */
export class ChargedEntries {
  readonly #runtime: ActorRuntime;
  readonly #feed: OutboxHandling;
  readonly #lapses: OutboxHandling;

  constructor(options: { runtime: ActorRuntime }) {
    this.#runtime = options.runtime;
    this.#feed = new OutboxHandling(
      options.runtime,
      CHARGED_ENTRY_OUTBOX,
      (item) => this.#onFeed(item),
    );
    this.#lapses = new OutboxHandling(
      options.runtime,
      NOTE_LAPSE_OUTBOX,
      (item) => this.#onLapse(item),
    );
  }

  /** Stops taking items (they wait in the outboxes) and waits for those being handled. */
  async close(): Promise<void> {
    await Promise.all([this.#feed.close(), this.#lapses.close()]);
  }

  async #onFeed(item: OutboxItem): Promise<void> {
    const fed = item.payload as ChargedEntryItem;
    if (fed.op === "book") {
      const e = fed.entry;
      // A new reference is all but certainly new to the charged entries: no read of the store.
      return must(
        await this.#runtime.ask(
          chargedEntryActor,
          item.tenant,
          chargedEntryId(fed.client, e.reference),
          {
            kind: "book",
            client: fed.client,
            reference: e.reference,
            entry: factsOf(e),
          },
          { fresh: true },
        ),
      );
    }
    await this.#count(item.tenant, fed.client, fed.corrects, {
      corrects_kind: fed.corrects_kind,
      seq: fed.seq,
      amount_minor: fed.amount_minor,
      key: fed.key,
    });
  }

  /**
   * A reservation its request left: by now the account posts it no more (NOTE_POST_WITHIN_MS),
   * so what is kept under its key says for good whether it was posted.
   */
  async #onLapse(item: OutboxItem): Promise<void> {
    const lapsed = item.payload as LapseItem;
    const kept = await this.#runtime.replyUnder(courierClientActor, lapsed.client, lapsed.key);
    const note = kept && typeof kept.reply === "object" && kept.reply !== null &&
        "entry" in kept.reply
      ? kept.reply.entry as LedgerEntry
      : null;
    if (note !== null && note.corrects === lapsed.reference) {
      await this.#count(item.tenant, lapsed.client, lapsed.reference, {
        corrects_kind: note.corrects_kind ?? null,
        seq: note.seq,
        amount_minor: note.amount_minor,
        key: lapsed.key,
      });
    }
    // Counted above (or by its own item), or never posted: the reservation goes either way.
    must(
      await this.#runtime.ask(
        chargedEntryActor,
        item.tenant,
        chargedEntryId(lapsed.client, lapsed.reference),
        { kind: "release", entry_kind: lapsed.entry_kind, key: lapsed.key, at: lapsed.at },
      ),
    );
  }

  async #count(
    tenant: string,
    client: string,
    reference: string,
    note: {
      corrects_kind: LedgerEntry["kind"] | null;
      seq: number;
      amount_minor: number;
      key?: string | undefined;
    },
  ): Promise<void> {
    must(
      await this.#runtime.ask(chargedEntryActor, tenant, chargedEntryId(client, reference), {
        kind: "count_note",
        client,
        reference,
        ...note,
      }, { idempotencyKey: countKey(note.seq), permanent: true }),
    );
  }
}

/** A refusal is thrown: the item stays for the sweep. */
function must(r: { ok: true } | { ok: false; code: string; message: string }): void {
  if (!r.ok) throw new Error(`charged entry: ${r.code}: ${r.message}`);
}
