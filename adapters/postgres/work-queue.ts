import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment, Statement } from "@effect/sql/Statement"
import type { Row } from "./rows.js"

/**
 * A table that work is claimed from: the rows are the work, and a row is taken by a worker with a
 * lease, so that the product's own tables stay the one record of what is due, running and done.
 */
export interface WorkTable {
  readonly table: string
  /** What every statement of the queue names the table by. */
  readonly alias: string
  /** The columns that name a row (uuids). */
  readonly key: ReadonlyArray<string>
  /**
   * When a row is next due: a lease pushes it to the lease's end (so a row whose worker died is
   * claimable again then), a retry to when it is tried again, a release to when it may be taken.
   * A table only ever picked inside a transaction, its rows held as long as that lasts, has none.
   */
  readonly due?: string
  /** The column naming the lease a row is held under, when leases are named. */
  readonly token?: string
  /**
   * The row lock a claim takes. `NO KEY UPDATE`, the lock an update of non-key columns takes
   * itself, lets other rows keep referencing the row while it is held.
   */
  readonly lock?: "UPDATE" | "NO KEY UPDATE"
}

/** Which rows a claim looks at, and in what order it takes them. */
export interface Pick {
  /** What the picked rows carry on (the key when not given). */
  readonly columns?: Fragment
  /** Tables joined to the work table to tell which of its rows are claimable. */
  readonly join?: Fragment
  /** The claimable predicate, over the work table's alias and the joined tables. */
  readonly where: Fragment
  readonly orderBy: Fragment
  readonly limit: number
  /** Evaluates the pick once, whatever reads it (a pick read by the lease and by the answer). */
  readonly materialized?: boolean
}

/** What a claim writes on the rows it takes. */
export interface Lease {
  /** When the lease ends: the row's `due` until then. */
  readonly until: Date
  /** The lease's name, written to the `token` column; a claim that keeps the rows' own lease gives none. */
  readonly token?: string
  /** More assignments, over the work table's alias. */
  readonly set?: Fragment
  /** How the picked rows (`due`) meet the table's rows: the key, unless given. */
  readonly match?: Fragment
}

/**
 * The claim's answer when the leased rows are not enough: a select over `due` (the rows as they
 * were picked) and `leased` (what the lease returned).
 */
export interface Answer {
  readonly select: Fragment
  /** What follows FROM: `due` or `leased`, the tables joined to them, and the answer's order. */
  readonly from: Fragment
}

/** A change to rows held under a lease: the rows named by `keys` (all the lease's rows when not given). */
export interface Held {
  readonly token: string
  readonly keys?: ReadonlyArray<string>
  /** More conditions the rows must meet. */
  readonly where?: Fragment
  /** More assignments. */
  readonly set?: Fragment
  readonly returning?: Fragment
}

/**
 * Claim, lease renewal, retry and release, written once over a {@link WorkTable}. Every claim is
 * one statement: the due rows are picked in order under a row lock that skips rows another worker
 * holds (`FOR UPDATE SKIP LOCKED`), so workers never wait on each other, and the picked rows are
 * leased in the same statement. A lease ends by itself: its row is due again when it does.
 * Changes under a lease apply only while the row is still held by it, so a worker whose lease ran
 * out and was taken over changes nothing.
 */
export const makeWorkQueue = (sql: SqlClient.SqlClient, work: WorkTable) => {
  const table = sql.literal(`${work.table} ${work.alias}`)
  const qualified = (columns: ReadonlyArray<string>) => columns.map((column) => `${work.alias}.${column}`).join(", ")
  const keyColumns = sql.literal(qualified(work.key))
  const keyMatch = sql.literal(work.key.map((column) => `${work.alias}.${column} = due.${column}`).join(" AND "))
  const due = () => {
    if (work.due === undefined) throw new Error(`${work.table} has no due column`)
    return sql.literal(work.due)
  }
  const lock = sql.literal(`FOR ${work.lock ?? "UPDATE"} OF ${work.alias} SKIP LOCKED`)
  const token = () => {
    if (work.token === undefined) throw new Error(`${work.table} has no lease token`)
    return sql.literal(work.token)
  }
  const optional = (prefix: string, fragment: Fragment | undefined) =>
    fragment === undefined ? sql`` : sql`${sql.literal(prefix)} ${fragment}`

  /**
   * The claimable rows in order, at most `limit`, each locked and skipped where another
   * transaction holds it. Alone inside a transaction it is a claim that lasts as long as the
   * transaction does.
   */
  const pick = (p: Pick): Statement<Row> =>
    sql`
      SELECT ${p.columns ?? keyColumns} FROM ${table} ${p.join ?? sql``}
      WHERE ${p.where}
      ORDER BY ${p.orderBy}
      LIMIT ${p.limit}
      ${lock}`

  /**
   * Picks due rows and leases them, in one statement: the leased rows' `returning` columns, or,
   * with `answer`, its rows. `pick` is the pick, or statements of their own that end in a
   * `due` of the rows to take.
   */
  const claim = (options: {
    readonly pick: Pick | { readonly ctes: Fragment }
    readonly lease: Lease
    readonly returning: Fragment
    readonly answer?: Answer
  }): Statement<Row> => {
    const { lease } = options
    const picked = "ctes" in options.pick
      ? options.pick.ctes
      : sql`due AS ${options.pick.materialized === true ? sql`MATERIALIZED` : sql``} (${pick(options.pick)})`
    const update = sql`
      UPDATE ${table}
      SET ${due()} = ${lease.until}
        ${lease.token === undefined ? sql`` : sql`, ${token()} = ${lease.token}`}
        ${optional(",", lease.set)}
      FROM due
      WHERE ${lease.match ?? keyMatch}
      RETURNING ${options.returning}`
    return options.answer === undefined
      ? sql`WITH ${picked} ${update}`
      : sql`WITH ${picked}, leased AS (${update}) SELECT ${options.answer.select} FROM ${options.answer.from}`
  }

  /** Changes rows only while `held.token` is their lease: `assignments`, then the held rows' own. */
  const underLease = (held: Held, assignments: ReadonlyArray<Fragment>): Statement<Row> =>
    sql`
      UPDATE ${table} SET ${sql.csv([...assignments, ...(held.set === undefined ? [] : [held.set])])}
      WHERE ${token()} = ${held.token}
        ${held.keys === undefined ? sql`` : sql`AND (${keyColumns}) = ANY(${keyList(held.keys)})`}
        ${optional("AND", held.where)}
      ${optional("RETURNING", held.returning)}`

  const keyList = (keys: ReadonlyArray<string>) => {
    if (work.key.length !== 1) throw new Error(`${work.table} is keyed by ${work.key.length} columns`)
    return sql`${keys}::uuid[]`
  }

  return {
    pick,
    claim,
    /** Extends the lease to `until`. */
    renew: (held: Held & { readonly until: Date | null }) => underLease(held, [sql`${due()} = ${held.until}`]),
    /** Keeps the rows leased and due again at `at`: a later claim that keeps the lease takes them then. */
    retry: (held: Held & { readonly at: Date | null }) => underLease(held, [sql`${due()} = ${held.at}`]),
    /** Ends the lease: the rows are due at `at` (never, when null) for any claim. */
    release: (held: Held & { readonly at: Date | null }) =>
      underLease(held, [sql`${due()} = ${held.at}`, sql`${token()} = NULL`]),
    /** Any other change to the held rows (`set`). */
    update: (held: Held & { readonly set: Fragment }) => underLease(held, [])
  } as const
}
