import pg from "pg"
import pgUtils from "pg/lib/utils.js"

/** A row as node-postgres gives it: each column by name, its value parsed by the column's type. */
export type Row = { readonly [column: string]: unknown }

/** The columns of a statement's rows, as the server described them: names and value parsers. */
interface RowShape {
  readonly names: ReadonlyArray<string>
  readonly parsers: ReadonlyArray<(text: string) => unknown>
}

/** What node-postgres's connection offers a query that submits itself (pg/lib/connection.js). */
interface Connection {
  readonly stream: { cork?: () => void; uncork?: () => void }
  readonly parsedStatements: Record<string, string | undefined>
  readonly submittedNamedStatements: Record<string, string | undefined>
  parse(query: { readonly text: string; readonly name: string }): void
  bind(config: {
    readonly statement: string
    readonly values: ReadonlyArray<unknown>
    readonly valueMapper: (value: unknown) => unknown
  }): void
  describe(message: { readonly type: "P"; readonly name: string }): void
  execute(config: { readonly portal: string }): void
  close(message: { readonly type: "S"; readonly name: string }): void
  sync(): void
}

interface FieldDescription {
  readonly name: string
  readonly dataTypeID: number
  readonly format: "text" | "binary"
}

/** Row shapes by statement name, for the statements of one database. */
export type RowShapes = Map<string, RowShape>

/**
 * One execution of a named statement, submitted to a node-postgres client as its own query
 * object. It is what `client.query({ name, text, values })` does, less what the busiest reads do
 * not need: the server describes the rows of a statement once (their shape is kept in `shapes`,
 * under the statement's name), not on every execution, and there are no events, no result object
 * and no copy of the query's configuration. Values are prepared as node-postgres prepares them,
 * and rows come back as it makes them, in text format.
 */
export class PreparedQuery {
  /** Told the outcome once; node-postgres sets it to the callback given with the query. */
  callback: ((error: unknown, rows?: ReadonlyArray<Row>) => void) | undefined = undefined
  private readonly rows: Array<Row> = []
  private shape: RowShape | undefined
  private failure: unknown = undefined

  constructor(
    readonly name: string,
    readonly text: string,
    private readonly values: ReadonlyArray<unknown>,
    private readonly shapes: RowShapes
  ) {
    this.shape = shapes.get(name)
  }

  submit(connection: Connection): null {
    const { name } = this
    connection.stream.cork?.()
    try {
      if (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined) {
        connection.parse({ text: this.text, name })
        connection.submittedNamedStatements[name] = this.text
      }
      try {
        connection.bind({ statement: name, values: this.values, valueMapper: pgUtils.prepareValue })
      } catch (error) {
        // A value that cannot be written: close what was begun, as node-postgres does.
        connection.close({ type: "S", name })
        connection.sync()
        this.failure = error
        return null
      }
      if (this.shape === undefined) connection.describe({ type: "P", name: "" })
      connection.execute({ portal: "" })
      connection.sync()
    } finally {
      connection.stream.uncork?.()
    }
    return null
  }

  handleRowDescription(message: { readonly fields: ReadonlyArray<FieldDescription> }): void {
    const shape: RowShape = {
      names: message.fields.map((field) => field.name),
      parsers: message.fields.map((field) => pg.types.getTypeParser(field.dataTypeID, field.format))
    }
    this.shape = shape
    this.shapes.set(this.name, shape)
  }

  handleDataRow(message: { readonly fields: ReadonlyArray<string | null> }): void {
    const shape = this.shape
    if (this.failure !== undefined) return
    if (shape === undefined) {
      this.failure = new Error(`Rows of statement ${this.name} came without a description`)
      return
    }
    const { names, parsers } = shape
    const row: Record<string, unknown> = {}
    const fields = message.fields
    try {
      for (let i = 0; i < fields.length; i++) {
        const text = fields[i]!
        row[names[i]!] = text === null ? null : parsers[i]!(text)
      }
    } catch (error) {
      this.failure = error
      return
    }
    this.rows.push(row)
  }

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail("No source stream defined")
  }

  handleCopyData(): void {}

  handleError(error: unknown): void {
    // The statement may be described differently when it is prepared again.
    this.shapes.delete(this.name)
    this.callback?.(error)
  }

  handleReadyForQuery(): void {
    if (this.failure !== undefined) this.callback?.(this.failure)
    else this.callback?.(null, this.rows)
  }
}
