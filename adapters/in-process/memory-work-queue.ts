/**
 * Claim and changes under a lease over a table of the in-memory database, written once, as the
 * SQL work queue (adapters/postgres/work-queue.ts) makes them. The store's writes take turns, so
 * a claim made in one write never meets another; what a row lock does in PostgreSQL, the turn does
 * here.
 */

/** Which rows a claim looks at, and in what order it takes them. */
export interface Pick<A> {
  readonly claimable: (row: A) => boolean
  readonly order: (a: A, b: A) => number
  readonly limit: number
}

/** The rows a claim takes: the claimable ones in claim order, at most `limit`. */
export const pickDue = <A>(rows: Iterable<A>, pick: Pick<A>): Array<A> => {
  const due: Array<A> = []
  for (const row of rows) if (pick.claimable(row)) due.push(row)
  return due.sort(pick.order).slice(0, Math.max(pick.limit, 0))
}

/**
 * Picks due rows of `table` and leases each: `lease` gives the row as leased, kept under its key,
 * and what the claim answers for it.
 */
export const claimDue = <K, A, B>(
  table: Map<K, A>,
  keyOf: (row: A) => K,
  pick: Pick<A>,
  lease: (row: A) => readonly [leased: A, answer: B]
): Array<B> =>
  pickDue(table.values(), pick).map((row) => {
    const [leased, answer] = lease(row)
    table.set(keyOf(row), leased)
    return answer
  })

/** Rows held under a lease: those of `token` (of them, those named by `keys`, when given) that `where` admits. */
export interface Held<K, A> {
  readonly token: string
  readonly tokenOf: (row: A) => string | null
  readonly keys?: Iterable<K>
  readonly where?: (row: A) => boolean
}

/**
 * Changes the rows held under `held.token`, and only those: a worker whose lease ran out and was
 * taken over changes nothing. The rows as changed.
 */
export const changeHeld = <K, A>(table: Map<K, A>, held: Held<K, A>, change: (row: A) => A): Array<A> => {
  const changed: Array<A> = []
  const visit = (key: K, row: A | undefined) => {
    if (row === undefined || held.tokenOf(row) !== held.token || held.where?.(row) === false) return
    const next = change(row)
    table.set(key, next)
    changed.push(next)
  }
  if (held.keys === undefined) for (const [key, row] of table) visit(key, row)
  else for (const key of held.keys) visit(key, table.get(key))
  return changed
}
