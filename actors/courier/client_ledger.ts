/**
 * The money part of the client account actor (courier 2.6, 4.2): later charges, FX resolution,
 * payments, debit and credit notes, COD, invoices. Pure decide and evolve over the account; the
 * entries go into events (and, projected, Postgres), the state keeps bounded aggregates only.
 * Each kind of money fact is decided in its own file of ./client_ledger/.
 */
import { type Ctx, unreachable } from "../../src/runtime/actor.ts";
import {
  bookEntry,
  bookInvoices,
  bookReceipt,
  dutiesRecoveredEffect,
  entryOf,
} from "../../src/courier/rules/ledger.ts";
import type { CourierClient } from "./courier_client/state.ts";
import type { LedgerCommand, LedgerEvent } from "./client_ledger/messages.ts";
import { balancesIn, withEffect } from "./client_ledger/balances.ts";
import type { LedgerDecision } from "./client_ledger/decisions.ts";
import { postCharge, resolveFx } from "./client_ledger/charges.ts";
import { codCollected, codRemitted, payment } from "./client_ledger/receipts.ts";
import { correct, withNoteInFlight } from "./client_ledger/notes.ts";
import { issueInvoice } from "./client_ledger/invoices.ts";

export type {
  AccountBalances,
  FxInput,
  FxResolution,
  LedgerCommand,
  LedgerEvent,
  LedgerReply,
  NoteReservation,
  OriginalEntry,
  OtherCurrencyBalances,
} from "./client_ledger/messages.ts";
export { entryAsk } from "./client_ledger/messages.ts";
export {
  accountBalances,
  balanceOutOfRange,
  balancesIn,
  balancesOf,
  hasBalances,
  otherCurrencies,
  withEffect,
} from "./client_ledger/balances.ts";
export { currencyRefusal } from "./client_ledger/decisions.ts";
export { NOT_CORRECTABLE } from "./client_ledger/notes.ts";

export function decideLedger(state: CourierClient, c: LedgerCommand, ctx: Ctx): LedgerDecision {
  switch (c.kind) {
    case "post_charge":
      return postCharge(state, c, ctx.now);
    case "resolve_fx":
      return resolveFx(state, c, ctx.now);
    case "payment":
      return payment(state, c, ctx.now);
    case "correct":
      return correct(state, c, ctx);
    case "cod_collected":
      return codCollected(state, c, ctx.now);
    case "cod_remitted":
      return codRemitted(state, c, ctx.now);
    case "issue_invoice":
      return issueInvoice(state, c, ctx);
    default:
      return unreachable(c);
  }
}

export function evolveLedger(state: CourierClient, event: LedgerEvent): CourierClient {
  switch (event.kind) {
    case "entry_posted": {
      const s = withEffect(state, event.entry.currency, event.effect);
      const ledger = bookEntry(s.ledger, event.entry, event.invoiceable);
      return { ...s, ledger: withNoteInFlight(ledger, event) };
    }
    case "fx_resolved": {
      const s = withEffect(state, event.resolution.currency, event.effect);
      const r = event.resolution;
      const rest = s.ledger.unresolved.filter((u) => u.reference !== r.reference);
      const entry = entryOf(r);
      return {
        ...s,
        ledger: bookEntry({ ...s.ledger, unresolved: rest }, entry, event.invoiceable),
      };
    }
    case "payment_received":
    case "cod_remitted": {
      const s = withEffect(state, event.entry.currency, event.effect);
      const e = event.entry;
      const cod = event.kind === "cod_remitted"
        ? s.ledger.cod.filter((x) => x.waybill !== e.shipment)
        : s.ledger.cod;
      const book = bookEntry({ ...s.ledger, cod }, e, false);
      return {
        ...s,
        ledger: bookReceipt(book, e.currency, event.allocations, event.unallocated_minor),
      };
    }
    case "cod_collected":
      return {
        ...state,
        ledger: {
          ...state.ledger,
          cod: [...state.ledger.cod, {
            waybill: event.waybill,
            amount_minor: event.amount_minor,
            currency: event.currency,
            collected_at: event.collected_at,
          }],
        },
      };
    case "invoices_issued": {
      let s = state;
      for (const [currency, duties] of Object.entries(event.duties_recovered ?? {})) {
        s = withEffect(s, currency, dutiesRecoveredEffect(balancesIn(s, currency), duties));
      }
      return { ...s, ledger: bookInvoices(s.ledger, event.invoices, event.allocations ?? []) };
    }
    default:
      return unreachable(event);
  }
}
