/**
 * Every limit of the service, named, unit last, each with why it has the value it has.
 * (TigerBeetle's constants.zig: one place to read and tune them.)
 */

/** Deno KV refuses values over 64 KiB; leave room for the record envelope. */
export const STATE_BYTES_MAX = 60_000;
/**
 * SQLite page of a new actor store file: a booking's values (3 KB) fit on one page instead of
 * spilling to overflow pages (measured in bench/booking.ts: the store's thread spent about 0.30
 * ms per hot-account booking with 4 KiB pages, 0.17–0.20 ms with 16 KiB).
 */
export const KV_PAGE_BYTES = 16_384;
/**
 * A record larger than one value is split into parts of this many bytes (UTF-8 of its JSON),
 * written in the same atomic commit; an actor opts in with ActorDefinition.stateBytesMax. So is
 * an event larger than one chunk (EVENT_CHUNK_BYTES_MAX).
 */
export const STATE_PART_BYTES = 60_000;
/** Events of one commit are stored in chunks of at most this many stored bytes (64 KiB value cap). */
export const EVENT_CHUNK_BYTES_MAX = 48_000;
/**
 * Index entries one prefix lookup reads at most: a driver's runs carrying one shipment are a
 * handful, and a pass over an index pages through it (Deno KV lists 1,000 at a time).
 */
export const INDEX_PREFIX_LOOKUP_MAX = 1_000;
/** Stored actors a re-index pass (src/runtime/reindex.ts) reads a page at a time. */
export const REINDEX_PAGE_ACTORS = 100;
/**
 * Deno KV: at most 100 checks in one atomic operation: one per actor in a group commit, and one
 * per unique index key it takes.
 */
export const GROUP_COMMIT_CHECKS_MAX = 100;
/** Deno KV: at most 1,000 mutations in one atomic operation; keep a margin for the largest write. */
export const GROUP_COMMIT_MUTATIONS_MAX = 900;
/**
 * Deno KV: at most 800 KiB (819,200 bytes) in one atomic operation, counting every key checked or
 * written and each set's key and value; the margin covers what the estimate of a value (its JSON,
 * kv_cost.ts writeCost) may fall short of V8's serialisation of it.
 */
export const GROUP_COMMIT_BYTES_MAX = 700_000;
/**
 * Deno KV: at most 80 KiB (81,920 bytes) of the keys set in one atomic operation, whatever their
 * values: a group of many small writes (events, indexes, timers) meets this before the bytes.
 */
export const GROUP_COMMIT_KEY_BYTES_MAX = 72_000;
/** Deno KV: a key is at most 2 KiB (2,048 bytes) as encoded; a longer one fails its commit. */
export const STORE_KEY_BYTES_MAX = 2_048;
/**
 * A reply kept under an idempotency key whose JSON keeps more than this is stored as UTF-8 parts of
 * STATE_PART_BYTES under its key, in the same commit: V8 serialises a value in up to about twice
 * its JSON's bytes (numbers), so a reply under this fits one 64 KiB value as it is.
 */
export const REPLY_INLINE_BYTES_MAX = 24_000;
/**
 * The largest bus message of one actor's change, in bytes of its JSON: NATS refuses a message past
 * the server's max_payload, 1 MiB (1,048,576 bytes) by default, and the rest is left for its
 * subject and headers. A change past it (events republished after a crash, many commits' worth)
 * goes as several messages in order (src/runtime/bus_slices.ts).
 */
export const BUS_CHANGE_BYTES_MAX = 1_000_000;
/**
 * Partitions actors are hashed onto (src/runtime/placement.ts). Fixed for the life of a store:
 * changing it moves actors between partitions. 64 spreads over a few dozen instances while a
 * lease sweep stays small.
 */
export const PARTITIONS = 64;
/**
 * Partitions an instance above its fair share gives up at each renewal (src/runtime/leases.ts):
 * a newly started instance gets its share within PARTITIONS / 8 renewals, while the partitions
 * moving at once (their actors read afresh by the taker) stay few.
 */
export const LEASES_RELEASED_PER_RENEWAL = 8;
/**
 * How long one forwarded ask waits for its holder's answer (src/runtime/forwarding.ts): past
 * it the caller is told the outcome is unknown, as a retry with its idempotency key settles.
 */
export const FORWARD_TIMEOUT_MS = 5_000;
/**
 * How long a forward keeps looking for a holder while nobody answers for the partition (a
 * lease moving) before it fails 503 `partition_unavailable`; the FORWARD_WAIT_MS setting.
 */
export const FORWARD_WAIT_MS = 5_000;
/** Commands one actor decides before its results are committed together. */
export const ACTOR_BATCH_COMMANDS_MAX = 500;
/** Commands queued at one actor beyond this are refused (back pressure, never unbounded memory). */
export const MAILBOX_DEPTH_MAX = 20_000;
/** A versionstamp conflict (another instance wrote first) reloads and retries this many times. */
export const CONFLICT_RETRIES_MAX = 8;
/** Activated actors kept in memory; the least recently used idle ones are let go past this. */
export const ACTORS_ACTIVE_MAX = 200_000;
/** Idempotency-keyed replies are kept this long (Business API: kept until the request succeeds). */
export const IDEMPOTENCY_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How often the system-clock scheduler looks for due timers. */
export const TIMER_POLL_MS = 250;
/** How often idle actors' recovery markers are swept away (one store write for many actors). */
export const MARKER_SWEEP_MS = 200;
/** Markers removed in one store write (Deno KV: at most 100 checks per atomic operation). */
export const MARKERS_PER_SWEEP_MAX = 90;
/** How often outboxes are swept for items a crash or a failed handler left (outbox.ts). */
export const OUTBOX_SWEEP_MS = 1_000;
/** A failed outbox item is tried again this long after its first failure (outbox.ts). */
export const OUTBOX_RETRY_FIRST_MS = 1_000;
/** ...the wait doubling at each failure after, up to this (a poisoned item, tried now and then). */
export const OUTBOX_RETRY_MAX_MS = 5 * 60_000;
/** Outbox items read per sweep round (bounded loop and memory). */
export const OUTBOX_SWEEP_ITEMS_MAX = 500;
/** Sweep rounds per outbox in one sweep (bounded loop: a round reads OUTBOX_SWEEP_ITEMS_MAX). */
export const OUTBOX_SWEEP_ROUNDS_MAX = 100;
/** Outbox items handled or waiting in memory; past this, new ones wait in the store for a sweep. */
export const OUTBOX_WAITING_MAX = 10_000;
/** Outbox items handled at once across the runtime; more wait their turn (bounded work). */
export const OUTBOX_DRAINS_MAX = 64;
/** Largest outbox item payload, in stored bytes: one store value (64 KiB) with room for its key. */
export const OUTBOX_ITEM_BYTES_MAX = 60_000;
/**
 * Attempts at booking one subscription occurrence that fail for a passing reason, before it is
 * noted failed (Business API 4.2): with the outbox's doubling waits, about 20 minutes of the
 * hour it is booked ahead of its pickup, not a retry for ever.
 */
export const SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX = 12;
/** How far ahead a recurring delivery may start (starts_on), in days: two years. */
export const SUBSCRIPTION_START_DAYS_MAX = 730;
/** Due timers fired per scheduler pass (bounded loop). */
export const TIMER_FIRE_BATCH_MAX = 500;

/** Business API 8: requests per minute and per day by plan. */
export const PLAN_RATE_LIMITS = {
  starter: { perMinute: 30, perDay: 1_000 },
  business: { perMinute: 120, perDay: 10_000 },
  enterprise: { perMinute: 6_000, perDay: 1_000_000 },
} as const;
/**
 * The driver app's calls per driver token (CONTRACT "Driver app"): Business API 8 gives a plan's
 * limits only, and a platform driver has no plan. An app batches its positions and polls its
 * offer every few seconds, about 20 calls a minute at a busy stop; 120 (the Business plan's
 * minute) leaves room for retries after lost signal, and 20,000 a day for a whole day so busy.
 */
export const POOL_DRIVER_RATE_LIMIT = { perMinute: 120, perDay: 20_000 } as const;
/** Requests without a business principal (public links, sign-in) are limited per address. */
export const ANONYMOUS_RATE_LIMIT = { perMinute: 600, perDay: 100_000 } as const;
/**
 * Business API 8: sandbox wallets hold 100,000 BWP and 100,000 ZAR (in minor units), credited
 * when a sandbox business is created.
 */
export const SANDBOX_WALLET_OPENING_MINOR = { BWP: 10_000_000, ZAR: 10_000_000 } as const;
/**
 * Business API 8: employee accounts by plan; null: unlimited (Enterprise). Null, not Infinity: the
 * bound travels in a command, which crosses between instances as JSON (json_safe.ts).
 */
export const PLAN_EMPLOYEES_MAX = { starter: 5, business: 50, enterprise: null } as const;

/** Random secrets carry at least 128 bits; we use 192 (24 bytes). */
export const SECRET_BYTES = 24;
/** PBKDF2-SHA256 iterations for portal and client passwords (slow on purpose). */
export const PBKDF2_ITERATIONS = 100_000;
/** A sign-in session (portal or client user) lasts this long. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Sessions kept per business; the oldest is signed out past this (bounded actor state). */
export const STAFF_SESSIONS_MAX = 200;
/** Audit entries kept in the business actor; the full trail is in Postgres. */
export const AUDIT_ENTRIES_IN_STATE_MAX = 100;
/**
 * Objects and arrays nested in a JSON body, at most (the body itself is the first level): a
 * booking's order_payload nested thousands deep was stored, then broke its business's trip list
 * and export for good, and deeper still overflowed the stack of the request's checks.
 */
export const JSON_DEPTH_MAX = 32;
/** Request bodies larger than this are refused before parsing. */
export const REQUEST_BODY_BYTES_MAX = 1_000_000;
/**
 * A shopping order's body (shopping 8: up to 20 stores of 200 lines): 4,000 lines of some 1,000
 * bytes each (a name, a barcode, a product photo's URL), past the common cap.
 */
export const SHOPPING_ORDER_BODY_BYTES_MAX = 4_000_000;
/** A multipart upload (an evidence file of up to 5 MB and its form fields). */
export const UPLOAD_BODY_BYTES_MAX = 6_000_000;
/** spec: courier 8: a bulk booking carries up to 200 shipments. */
export const BULK_SHIPMENTS_MAX = 200;
/**
 * spec: courier 8: shipment lines of one CSV booking upload: a CSV booking is a bulk booking
 * (4.6), up to 200 shipments per call; a larger file is sent as several.
 */
export const CSV_BOOKING_LINES_MAX = BULK_SHIPMENTS_MAX;
/**
 * Rows of one bulk or CSV booking in flight at once: each waits on four commits in turn, so 32
 * keep the group commits full (2.5x the rate of 8) while one upload's asks stay bounded.
 */
export const BOOKING_ROWS_CONCURRENCY = 32;
/** After a webhook secret rotation the old key id still verifies this long (courier 6.1). */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;
/**
 * Events waiting for an endpoint made due at once when their recipient sets one (courier 3.1);
 * any beyond keep their hourly try. 200 asks at a time, a second or two at this bound.
 */
export const ENDPOINT_SET_EVENTS_MAX = 10_000;
/**
 * A busy projection begins a batch at most this often (src/db/sync.ts WriteQueue): each write is a
 * round trip with a fixed cost (a worker thread woken, a statement planned and committed), so
 * under load fewer and larger batches cost less (issue 36 item 1), for at most this much more lag.
 */
export const PROJECTION_WRITE_PACE_MS = 20;
/**
 * Issue 36 item 1: the changes one projection may hold received and not yet written before
 * this instance refuses writes (503 projections_behind) until it is back under: a few seconds of
 * commits at full load (about three changes a booking), some tens of MB of memory.
 */
export const PROJECTION_BACKLOG_MAX = 10_000;
/** The Retry-After of a write refused while a projection is behind, seconds. */
export const PROJECTION_BEHIND_RETRY_S = 1;
/** How often charges whose billing event is missing are looked for (see BillingEvents.sweep). */
export const BILLING_SWEEP_MS = 60_000;
/**
 * Waits before each further attempt of a bus handler's work that failed (src/bus/retry.ts): one
 * attempt plus one per wait, ~5 s in all. Long enough to ride out a dropped connection, a busy
 * actor or a database failover's first seconds; short enough that a lasting failure holds its
 * one key (and the flush the runtime's recovery markers wait for) only briefly before it is
 * reported and deferred (src/platform/reactors/deferred.ts).
 */
export const HANDLER_RETRY_DELAYS_MS: readonly number[] = [50, 250, 1_000, 4_000];
/**
 * Work a bus worker still failed after those retries, or that a shutdown stopped, is kept
 * (actors/platform/deferred_work.ts) and tried again after these waits (the webhook schedule of courier
 * 8), then every 12 hours until done: unlike a webhook nobody answers, this is work the service
 * owes (an alert, an event, a crossing), so it is never given up; each failed try is logged.
 */
export const DEFERRED_WORK_RETRY_MS: readonly number[] = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  120 * 60_000,
  720 * 60_000,
];
/**
 * The sweeps (src/db/sweep_rounds.ts) read only what became due since their last round, except
 * one round this often, which goes all the way back: rows that reached the query side later than
 * a round's overlap (a long database outage) are found within the hour.
 */
export const SWEEP_DEEP_EVERY_MS = 60 * 60_000;
/**
 * How far back the completion sweep looks for a delivered, returned or cancelled shipment whose
 * billing event is missing (BillingEvents.sweepCompletions): a week of a failure left unfixed.
 */
export const COMPLETION_SWEEP_LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Adjustments (later charges, debit and credit notes) one completion billing event lists
 * (courier 2.7), oldest first: a shipment carries a handful; a bound keeps one body small. Notes
 * stop at half of it (NOTE_ADJUSTMENTS_MAX), so that the charges its work books fit whole.
 */
export const COMPLETION_ADJUSTMENTS_MAX = 200;
/**
 * A debit or credit note on a shipment's entry (courier 2.6 rule 5) is refused once the shipment
 * has this many adjustments: its completion event lists every one (courier 2.7), at most
 * COMPLETION_ADJUSTMENTS_MAX. The other half is left for the charges its work books (customs,
 * runs, scans: courier 2.6 rule 3), facts that happened, which are never refused.
 */
export const NOTE_ADJUSTMENTS_MAX = COMPLETION_ADJUSTMENTS_MAX / 2;
/**
 * A debit or credit note reserved on its charged entry is posted by the account within this
 * time of its reservation, or not at all (courier 2.6 rule 5): a request that died between the
 * two leaves a reservation the entry's timer can then resolve for certain.
 */
export const NOTE_POST_WITHIN_MS = 60_000;
/**
 * When a reservation not yet confirmed is resolved (posted: confirmed, else released): past
 * NOTE_POST_WITHIN_MS with a margin for the clocks of two instances.
 */
export const NOTE_RESERVATION_LAPSE_MS = 3 * NOTE_POST_WITHIN_MS;
/**
 * Notes being booked on one entry at once: each waits for its account's posting, a few
 * milliseconds; more are asked to retry (a bound on the entry's state, STATE_BYTES_MAX).
 */
export const NOTE_RESERVATIONS_MAX = 40;
/**
 * Completions whose billing event waits for the query side to hold what their client's account
 * had booked (BillingEvents): one instance keeps the entry seq each waits for between its tries.
 * Past this the oldest is forgotten, and read afresh at its next try. About 100 bytes each.
 */
export const COMPLETIONS_AWAITING_LEDGER_MAX = 10_000;
/** Completed shipments read per statement of the completion sweep (one page). */
export const COMPLETION_SWEEP_PAGE_MAX = 500;
/**
 * Pages of completed shipments one completion sweep reads: the next pass goes on from where this
 * one stopped, so a busy week is covered over a few passes, each of bounded cost.
 */
export const COMPLETION_SWEEP_PAGES = 10;
/**
 * How far back the charge sweep looks for a ledger entry whose billing event is missing
 * (BillingEvents.sweep): a month of downtime, as for stalled bookings.
 */
export const CHARGE_SWEEP_LOOKBACK_MS = 31 * 24 * 60 * 60 * 1000;
/** Entries without their billing event the charge sweep reads per statement (one page). */
export const CHARGE_SWEEP_PAGE_MAX = 500;
/** Pages of such entries one charge sweep reads; the next pass goes on from there. */
export const CHARGE_SWEEP_PAGES = 4;
/**
 * A booking charged this long ago without its shipment (a crash between its two commits) and not
 * sent again by its client is completed by the sweep (completeStalledBookings): long past any
 * retry of a request in flight, and still the same hour for the client that books.
 */
export const STALLED_BOOKING_MS = 10 * 60_000;
/**
 * A laboratory profile's cold-slot reservation still unsettled this long after it was made (its
 * request stopped between taking the slots and the profile) is settled by the shipment's sweep
 * (src/courier/flows/lab_cold_slots.ts): long past any request in flight, and soon enough that a
 * run's last cold slot is not lost for the day.
 */
export const COLD_RESERVATION_STALL_MS = 10 * 60_000;
/** How far back the sweep looks for stalled bookings: a month of downtime, bounded scans. */
export const STALLED_BOOKING_LOOKBACK_MS = 31 * 24 * 60 * 60 * 1000;
/** Stalled bookings completed by one sweep; the rest by the next. */
export const STALLED_BOOKINGS_PER_SWEEP = 100;
/**
 * A later charge a scan caused and the ledger has not confirmed is booked again this long after
 * it came due, and as often after that (actors/courier/shipment/mod.ts `charges_due`): the scan's request and
 * its `charge_due` event book it within moments, so a charge still due has met a crash or a
 * failure; often enough that it waits minutes, rare enough that one refused for hours costs one
 * commit every few minutes.
 */
export const SCAN_CHARGE_RETRY_MS = 5 * 60_000;
/**
 * spec: courier 1.4, 8: a shipment stays open 1 to 14 days. Its estimate follows the days (moves
 * on once its day is over, actors/courier/shipment/mod.ts) within that time only, or until its promised day
 * when that is later: a shipment left open past it (never handed over, never found, closed by
 * nobody) would otherwise wake every night and send its client shipment.estimate_changed every
 * working day, for ever.
 */
export const SHIPMENT_OPEN_MS_MAX = 14 * 24 * 60 * 60 * 1000;
/**
 * Distinct temperature readings one laboratory sample keeps (courier 2.10: readings are
 * append-only; the same reading sent twice is kept once, however long after): the sample keeps
 * a digest of each to know it when it comes again. A reading every two minutes for the 14 days a
 * shipment may stay open (10,080); past it a new reading is refused (`readings_limit`) rather
 * than kept without its digest, where a logger's log sent again would count it twice.
 */
export const LAB_READINGS_MAX = SHIPMENT_OPEN_MS_MAX / (2 * 60_000);
/**
 * A reading's digest: 96 bits of SHA-256 in base64url. Two of LAB_READINGS_MAX readings share one
 * with odds below 10^-21, so a reading is taken for another only as often as that.
 */
export const LAB_READING_DIGEST_CHARS = 16;
/**
 * A laboratory sample's stored state: one store value for what it held before (profile, ticks,
 * decisions, its latest readings), and the digests of LAB_READINGS_MAX readings (each quoted, with
 * its comma), split over several store values in the same commit.
 */
export const LAB_SAMPLE_STATE_BYTES_MAX = STATE_BYTES_MAX +
  LAB_READINGS_MAX * (LAB_READING_DIGEST_CHARS + 3);

/** Users of one courier client (courier 4.6): each is ~250 bytes of the client actor's state. */
export const CLIENT_USERS_MAX = 50;
/** Saved addresses of one courier client (courier 4.6); each is its own actor, counted here. */
export const CLIENT_ADDRESSES_MAX = 500;
/** Packets stocked in one call (retail packet programme, courier 4.6): one actor ask each. */
export const PACKETS_PER_STOCK_MAX = 200;
/** Shipments one collection manifest lists (courier 4.6); a day's collections, bounded. */
export const COLLECTION_MANIFEST_SHIPMENTS_MAX = 2_000;
/** Sign-in throttling: failures counted within this window (then forgotten). */
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Failed sign-ins for one account (e-mail) before each further one waits. */
export const LOGIN_FAILURES_PER_ACCOUNT_FREE = 5;
/** Failed sign-ins from one address before each further one waits (offices share addresses). */
export const LOGIN_FAILURES_PER_ADDRESS_FREE = 20;
/** The first wait after the free failures; it doubles with each further failure. */
export const LOGIN_DELAY_BASE_MS = 30_000;
/** The longest wait: a locked account opens again within this, so no one locks a user out for good. */
export const LOGIN_DELAY_MAX_MS = 60 * 60 * 1000;
/**
 * A sign-in attempt being checked counts as one that may fail until it is reported; one never
 * reported (the request crashed) stops counting after this, far longer than a password check.
 */
export const LOGIN_ATTEMPT_PENDING_MS = 60 * 1000;
/** Accounts and addresses tracked in memory; the oldest are dropped past this (bounded). */
export const LOGIN_THROTTLE_ENTRIES_MAX = 100_000;
/** Tracking link tokens (courier 2.11) are 32 characters; a path segment outside these bounds is no token. */
export const TRACKING_TOKEN_CHARS_MIN = 10;
/** The longest path segment hashed and looked up as a tracking token: bounds the work of a guess. */
export const TRACKING_TOKEN_CHARS_MAX = 200;
/** The shortest password a person may set (courier 5); weaker rules are in domain/passwords.ts. */
export const PASSWORD_CHARS_MIN = 10;
/**
 * Export bounds (courier 4.3 `from`, `to`) are refused outside these years: no entry predates the
 * epoch the service counts from, and Postgres holds no year 0 nor ISO text past year 9999.
 */
export const EXPORT_BOUND_YEAR_MIN = 1970;
export const EXPORT_BOUND_YEAR_MAX = 9999;

/** Ledger entry references, invoice ids and waybills: short, stable strings (courier 2.6). */
export const REFERENCE_CHARS_MAX = 80;
/**
 * Clients whose name a search's `q` starts with, looked up before the shipments: a short `q`
 * matching more names is still answered by its references, and the shipments' IN list stays short.
 */
export const SEARCH_CLIENTS_MAX = 100;
/** Reasons, evidence paths and source event names a ledger entry keeps (courier 2.6). */
export const TEXT_CHARS_MAX = 500;
/**
 * A stop waits this long for the requests under way (an upload still being sent) before the
 * servers are shut down: under Docker's 10 s stop timeout, the shortest of the usual supervisors'
 * (Kubernetes 30 s, systemd 90 s), so the stores are still closed before a SIGKILL.
 */
export const STOP_DRAIN_MS_MAX = 8_000;

/** spec: shopping 8: stores in one shopping order. */
export const SHOPPING_STORES_MAX = 20;
/**
 * The largest amount of a shopping order or of its shopper's work (an estimate, a unit price, a
 * till amount), in major units: every store of an order at it still adds up exactly
 * (AMOUNT_MINOR_MAX), so the float always reconciles (spec: shopping 1.1, 3).
 */
export const SHOPPING_AMOUNT_MAX = 1_000_000_000;
/**
 * spec: shopping 2.2: purchase_amount defaults to the sum of the stores' estimates and may not be
 * lower, so it may be as large as that sum can be: every store's estimate at SHOPPING_AMOUNT_MAX.
 */
export const SHOPPING_PURCHASE_AMOUNT_MAX = SHOPPING_STORES_MAX * SHOPPING_AMOUNT_MAX;
/** spec: shopping 8: lines a store of a shopping order holds. */
export const SHOPPING_LINES_MAX = 200;
/** spec: shopping 8: external_order_id (and the other external ids) are 1 to 64 characters. */
export const SHOPPING_EXTERNAL_ID_CHARS_MAX = 64;
/** spec: shopping 8: the decision window, 5 minutes by default. */
export const SHOPPING_ASK_TIMEOUT_MINUTES_DEFAULT = 5;
/** A decision window longer than a day would hold a shopper in the store. */
export const SHOPPING_ASK_TIMEOUT_MINUTES_MAX = 24 * 60;
/** spec: shopping 8: a receipt link is valid at least 10 minutes, 24 hours by default. */
export const SHOPPING_RECEIPT_TTL_MINUTES_MIN = 10;
export const SHOPPING_RECEIPT_TTL_MINUTES_DEFAULT = 24 * 60;
/** A receipt link valid a month at most: receivers copy the image on receipt (spec: shopping 6). */
export const SHOPPING_RECEIPT_TTL_MINUTES_MAX = 31 * 24 * 60;
/** A signed shopping link's token (claims and MAC, base64url): far above any link made. */
export const SHOPPING_LINK_CHARS_MAX = 1_024;
/** spec: shopping 8: the delivery history shows the last 100 events. */
export const SHOPPING_DELIVERY_HISTORY_MAX = 100;
/**
 * One store of a shopping order held by its own actor: 200 lines of up to a few hundred bytes
 * each, above one store value (the store splits it over several in one commit).
 */
export const SHOPPING_STORE_STATE_BYTES_MAX = 400_000;
/**
 * What the shopper's work may add to one line once it is held (its outcome and amounts, a
 * substitute of 200 + 64 characters escaped, its decision window's timer, times): kept free for
 * every line when the store opens, so recording a line is never refused for the store's size.
 */
export const SHOPPING_LINE_WORK_CHARS_MAX = 1_000;
/**
 * A store's lines as held (JSON characters) plus SHOPPING_LINE_WORK_CHARS_MAX for each: within
 * its state, with room for the store's own fields (ids, name, receipt, the record around it).
 */
export const SHOPPING_STORE_LINES_CHARS_MAX = SHOPPING_STORE_STATE_BYTES_MAX - 10_000;
