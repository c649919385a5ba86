/** A small account actor for runtime tests: a balance, an append-only list, a reminder timer. */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";
import type { AnyActorDefinition, TimerFired } from "../../src/runtime/actor.ts";
import {
  ActorRuntime,
  type OutboxHandler,
  type RuntimeOptions,
} from "../../src/runtime/runtime.ts";
import { KvActorStore } from "../../src/runtime/kv_store.ts";
import { PgActorStore } from "../../src/runtime/pg_store.ts";
import type { ActorStore } from "../../src/runtime/store.ts";
import type { Placement } from "../../src/runtime/placement.ts";
import postgres from "postgres";
import { SCHEMAS_LOCK_KEY } from "../../src/db/migrate.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import type { Bus } from "../../src/bus/bus.ts";

export interface AccountState {
  readonly balance: number;
  readonly seen: readonly number[];
  readonly reminders: number;
  readonly email: string | null;
}

export type AccountCommand =
  | { kind: "credit"; amount: number }
  | { kind: "debit"; amount: number }
  | { kind: "append"; n: number }
  | { kind: "remind_at"; at: number }
  | { kind: "set_email"; email: string }
  | { kind: "explode" }
  | { kind: "get" };

export type AccountEvent =
  | { kind: "credited"; amount: number }
  | { kind: "debited"; amount: number }
  | { kind: "appended"; n: number }
  | { kind: "reminded" }
  | { kind: "email_set"; email: string };

export const accountActor: ActorDefinition<
  AccountState,
  AccountCommand,
  AccountEvent,
  AccountState
> = {
  type: "test_account",
  version: 1,
  initial: { balance: 0, seen: [], reminders: 0, email: null },
  decide(state, command: AccountCommand | TimerFired) {
    const reply = (s: AccountState) => s;
    switch (command.kind) {
      case "credit":
        return accept([{ kind: "credited", amount: command.amount }], reply);
      case "debit":
        if (state.balance < command.amount) {
          return reject("insufficient_balance", `available ${state.balance}`);
        }
        return accept([{ kind: "debited", amount: command.amount }], reply);
      case "append":
        return accept([{ kind: "appended", n: command.n }], reply);
      case "remind_at":
        return accept([], reply, [{ op: "set", name: "reminder", at: command.at }]);
      case "set_email":
        return accept([{ kind: "email_set", email: command.email }], reply);
      case "explode":
        throw new Error("invariant broken on purpose");
      case "get":
        return accept([], reply);
      case "timer":
        return accept([{ kind: "reminded" }], reply);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "credited":
        return { ...state, balance: state.balance + event.amount };
      case "debited":
        return { ...state, balance: state.balance - event.amount };
      case "appended":
        return { ...state, seen: [...state.seen, event.n] };
      case "reminded":
        return { ...state, reminders: state.reminders + 1 };
      case "email_set":
        return { ...state, email: event.email };
      default:
        return unreachable(event);
    }
  },
  indexes: (s) => s.email === null ? [] : [{ index: "test_email", key: s.email }],
  project: (s) => ({ balance: s.balance }),
};

/** Notes that may outgrow one store value: the runtime splits its state over several. */
export const notebookActor: ActorDefinition<
  readonly string[],
  | { kind: "write"; text: string }
  | { kind: "write_all"; texts: readonly string[] }
  | { kind: "clear" }
  | { kind: "get" },
  { kind: "written"; text: string } | { kind: "cleared" },
  readonly string[]
> = {
  type: "test_notebook",
  version: 1,
  initial: [],
  decide(_state, command) {
    const reply = (s: readonly string[]) => s;
    switch (command.kind) {
      case "write":
        return accept([{ kind: "written", text: command.text }], reply);
      case "write_all":
        // One event per text, all in one commit.
        return accept(command.texts.map((text) => ({ kind: "written" as const, text })), reply);
      case "clear":
        return accept([{ kind: "cleared" }], reply);
      case "get":
        return accept([], reply);
      case "timer":
        return accept([], reply);
      default:
        return unreachable(command);
    }
  },
  evolve: (state, event) => event.kind === "written" ? [...state, event.text] : [],
  stateBytesMax: 400_000,
};

/** A write-once note whose events stay off the bus; only public notes are projected. */
export const receiptActor: ActorDefinition<
  { text: string; public: boolean } | null,
  { kind: "make"; text: string; public: boolean },
  { kind: "made"; text: string; public: boolean },
  undefined
> = {
  type: "test_receipt",
  version: 1,
  initial: null,
  decide(_state, command) {
    if (command.kind === "timer") return accept([]);
    return accept([{ kind: "made", text: command.text, public: command.public }]);
  },
  evolve: (_state, event) => ({ text: event.text, public: event.public }),
  publishEvents: false,
  logEvents: false,
  project: (s) => s?.public ? s : undefined,
};

/** Names an actor holds in a unique index: one actor at a time may hold a name. */
export const handleActor: ActorDefinition<
  readonly string[],
  { kind: "take"; name: string } | { kind: "drop"; name: string },
  { kind: "taken"; name: string } | { kind: "dropped"; name: string },
  readonly string[]
> = {
  type: "test_handle",
  version: 1,
  initial: [],
  decide(state, command) {
    const reply = (s: readonly string[]) => s;
    switch (command.kind) {
      case "take":
        return accept(
          state.includes(command.name) ? [] : [{ kind: "taken", name: command.name }],
          reply,
        );
      case "drop":
        return accept([{ kind: "dropped", name: command.name }], reply);
      case "timer":
        return accept([], reply);
      default:
        return unreachable(command);
    }
  },
  evolve: (state, event) =>
    event.kind === "taken" ? [...state, event.name] : state.filter((n) => n !== event.name),
  indexes: (state) => state.map((name) => ({ index: "test_handle", key: name })),
  uniqueIndexes: ["test_handle"],
};

export interface TestRuntime {
  runtime: ActorRuntime;
  store: ActorStore;
  clock: ManualClock;
  bus: Bus;
  close(): Promise<void>;
}

/**
 * A runtime on a KV file or `:memory:` (or on Postgres: openTestStore), of the fixture actors
 * unless `definitions` names others.
 */
export async function openTestRuntime(
  path = ":memory:",
  options: {
    clock?: ManualClock;
    bus?: Bus;
    groupCommit?: boolean;
    definitions?: readonly AnyActorDefinition[];
    env?: string;
    /** Outbox handlers, named before the runtime starts (and sweeps them). */
    outboxes?: Readonly<Record<string, OutboxHandler>>;
    /** The store; default: Postgres with ACTOR_STORE=postgres and DATABASE_URL, else KV. */
    store?: TestStoreKind;
    /** The placement, made on the runtime's store (leases); default: one instance holds all. */
    placement?: (store: ActorStore) => Placement;
    /** Where this runtime stands among several (forwarding tests). */
    placed?: Pick<RuntimeOptions, "placement" | "forwardWaitMs" | "onForward">;
    /** Told of the runtime's failures; default: none reported. */
    onError?: RuntimeOptions["onError"];
    /** Wraps the store the runtime is given (a commit failing on purpose); `store` is the real one. */
    storeOf?: (store: ActorStore) => ActorStore;
  } = {},
): Promise<TestRuntime> {
  const { store, drop } = await openTestStore(path, storeKindOf(options.store));
  const given = options.storeOf ? options.storeOf(store) : store;
  const clock = options.clock ?? new ManualClock();
  const bus = options.bus ?? new MemoryBus();
  const runtime = new ActorRuntime({
    env: options.env ?? "test",
    store: given,
    bus,
    clock,
    definitions: options.definitions ?? [accountActor, notebookActor, receiptActor, handleActor],
    ...(options.groupCommit === undefined ? {} : { groupCommit: options.groupCommit }),
    ...(options.placement ? { placement: options.placement(given) } : {}),
    ...options.placed,
    onError: options.onError ?? (() => {}),
  });
  for (const [name, handler] of Object.entries(options.outboxes ?? {})) {
    runtime.handleOutbox(name, handler);
  }
  await runtime.start();
  return {
    runtime,
    store,
    clock,
    bus,
    async close() {
      await runtime.close();
      await bus.flush();
      await store.close();
      await drop();
    },
  };
}

/** Which store a test runtime is on: ACTOR_STORE=postgres with DATABASE_URL set, else KV. */
export type TestStoreKind = "kv" | "postgres";

function storeKindOf(asked: TestStoreKind | undefined): TestStoreKind {
  if (asked !== undefined) return asked;
  const onPostgres = Deno.env.get("ACTOR_STORE") === "postgres" && Deno.env.has("DATABASE_URL");
  return onPostgres ? "postgres" : "kv";
}

/**
 * A test runtime's store on Postgres is in a schema of its own: a fresh one for `:memory:`,
 * dropped at close; for a file, one named by its path, so a restart finds its actors, dropped
 * by dropTestStore(path) once the test is done with it.
 */
async function schemaOf(path: string): Promise<string> {
  const name = path === ":memory:"
    ? crypto.randomUUID().replaceAll("-", "")
    : await sha256Hex(path);
  return `actor_store_rt_${name.slice(0, 24)}`;
}

async function openTestStore(
  path: string,
  kind: TestStoreKind,
): Promise<{ store: ActorStore; drop(): Promise<void> }> {
  const url = Deno.env.get("DATABASE_URL");
  if (kind === "kv") return { store: await KvActorStore.open(path), drop: () => Promise.resolve() };
  if (url === undefined) throw new Error("a test store on Postgres needs DATABASE_URL");
  const schema = await schemaOf(path);
  const store = await PgActorStore.open({ url, schema });
  const drop = () => path === ":memory:" ? dropSchemaAt(url, schema) : Promise.resolve();
  return { store, drop };
}

/** Drops what the test runtimes on `path` stored in Postgres (none on Deno KV). */
export async function dropTestStore(path: string, kind?: TestStoreKind): Promise<void> {
  const url = Deno.env.get("DATABASE_URL");
  if (storeKindOf(kind) === "postgres" && url !== undefined) {
    await dropSchemaAt(url, await schemaOf(path));
  }
}

/** Drops a Postgres schema a test made, in turn with migrations. */
export async function dropSchemaAt(url: string, schema: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // In turn with migrations (SCHEMAS_LOCK_KEY): their look at the catalog fails on a schema
    // dropped meanwhile.
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${SCHEMAS_LOCK_KEY})`;
      await tx.unsafe(`drop schema if exists "${schema}" cascade`);
    });
  } finally {
    await sql.end();
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
