/**
 * A Kysely dialect over embedded PGlite. PGlite is one Postgres session, so the driver hands out
 * its single connection to one holder at a time (a transaction keeps it from BEGIN to COMMIT).
 * Kysely 0.29 ships a PGliteDialect too; this one adds streaming (through a cursor, so CSV
 * exports run on both drivers) and hands the instance back (`release`) when destroyed.
 */
import {
  AbortedTransactionError,
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";

/** What the dialect needs of PGlite: the instance itself, or its proxy in a worker. */
export interface PGliteTarget {
  query<R>(sql: string, params?: unknown[]): Promise<{
    rows: R[];
    affectedRows?: number;
    command?: string;
  }>;
  readonly closed: boolean;
  readonly waitReady: Promise<void>;
  /**
   * Bumps when the session underneath was replaced (a worker restarted, pglite_proxy.ts): a
   * transaction begun before is gone, so its later statements must not run outside it.
   */
  readonly generation?: number;
}

export interface PGliteDialectConfig {
  /** A ready instance. */
  readonly pglite: PGliteTarget;
  /**
   * What becomes of it when the Kysely instance is destroyed, once no query holds it: closed, or
   * kept for another opener (pglite_memory.ts). Queries through this dialect are refused after.
   */
  readonly release: () => Promise<void>;
}

export class PGliteDialect implements Dialect {
  readonly #config: PGliteDialectConfig;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#config.pglite, this.#config.release);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
}

/** First come, first served; `unlock` hands the lock straight to the next waiter. */
class Mutex {
  #locked = false;
  #waiters: (() => void)[] = [];

  async lock(): Promise<void> {
    if (!this.#locked) {
      this.#locked = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  unlock(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#locked = false;
  }
}

class PGliteDriver implements Driver {
  readonly #pglite: PGliteTarget;
  readonly #release: () => Promise<void>;
  readonly #connection: PGliteConnection;
  readonly #mutex = new Mutex();
  #destroyed = false;

  constructor(pglite: PGliteTarget, release: () => Promise<void>) {
    this.#pglite = pglite;
    this.#release = release;
    this.#connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    // Destroyed: the instance may serve another opener now, in another schema.
    if (this.#destroyed || this.#pglite.closed) {
      this.#mutex.unlock();
      throw new Error("PGlite is closed");
    }
    return this.#connection;
  }

  releaseConnection(): Promise<void> {
    this.#mutex.unlock();
    return Promise.resolve();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    let text = "begin";
    if (settings.isolationLevel || settings.accessMode) {
      text = "start transaction";
      if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) text += ` ${settings.accessMode}`;
    }
    await connection.executeQuery(CompiledQuery.raw(text));
    this.#connection.began();
  }

  async commitTransaction(): Promise<void> {
    try {
      // Postgres answers COMMIT with ROLLBACK when an earlier statement aborted the transaction.
      if (await this.#connection.command("commit") === "ROLLBACK") {
        throw new AbortedTransactionError();
      }
    } finally {
      this.#connection.ended();
    }
  }

  async rollbackTransaction(): Promise<void> {
    try {
      // A session that ended took its transaction with it: there is nothing to roll back.
      if (!this.#connection.lost()) await this.#connection.command("rollback");
    } finally {
      this.#connection.ended();
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  /** Waits for the current holder of the connection, then releases the instance. */
  async destroy(): Promise<void> {
    await this.#mutex.lock();
    try {
      if (this.#destroyed) return;
      this.#destroyed = true;
      await this.#release();
    } finally {
      this.#mutex.unlock();
    }
  }
}

let cursorCount = 0;

/** A transaction rolled back by the session's end (transaction_rollback class): transient. */
const SESSION_LOST_CODE = "40003";

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGliteTarget;
  /** The session generation the open transaction began in; null outside a transaction. */
  #transaction: number | null = null;

  constructor(pglite: PGliteTarget) {
    this.#pglite = pglite;
  }

  began(): void {
    this.#transaction = this.#pglite.generation ?? 0;
  }

  ended(): void {
    this.#transaction = null;
  }

  /** True in a transaction whose session ended (a restarted worker). */
  lost(): boolean {
    return this.#transaction !== null && this.#transaction !== (this.#pglite.generation ?? 0);
  }

  /** Refuses a statement of a transaction whose session is gone (it would run outside it). */
  #query<R>(sql: string, params?: unknown[]) {
    if (this.lost()) {
      return Promise.reject(
        Object.assign(new Error("the PGlite session of this transaction was restarted"), {
          code: SESSION_LOST_CODE,
        }),
      );
    }
    return this.#pglite.query<R>(sql, params);
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    const command = result.command?.toUpperCase();
    const counted = command === "INSERT" || command === "UPDATE" || command === "DELETE" ||
      command === "MERGE";
    return {
      rows: result.rows,
      ...(counted ? { numAffectedRows: BigInt(result.affectedRows ?? 0) } : {}),
    };
  }

  /** Runs a statement without parameters; returns its command tag (`COMMIT`, `ROLLBACK`). */
  async command(text: string): Promise<string | undefined> {
    return (await this.#query(text)).command?.toUpperCase();
  }

  /**
   * Reads through a cursor, `chunkSize` rows at a time. WITH HOLD lets the cursor outlive the
   * implicit transaction when the stream is not inside one; it is closed when the stream ends.
   */
  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0) {
      throw new RangeError(`chunkSize must be a positive integer: ${chunkSize}`);
    }
    const cursor = `kysely_stream_${++cursorCount}`;
    await this.#query(
      `declare ${cursor} no scroll cursor with hold for ${compiledQuery.sql}`,
      [...compiledQuery.parameters],
    );
    try {
      while (true) {
        const { rows } = await this.#query<R>(`fetch forward ${chunkSize} from ${cursor}`);
        if (rows.length === 0) return;
        yield { rows };
      }
    } finally {
      await this.#query(`close ${cursor}`);
    }
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
