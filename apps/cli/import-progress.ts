import { SingleBar } from "cli-progress"

/**
 * How far an import has read its file, on stderr: a bar with rows and rows a second on a
 * terminal, and off one (a log, a pipe) a plain line every few seconds, without escape codes.
 */
export interface ImportProgress {
  readonly read: (bytes: number) => void
  readonly rows: (rows: number, problems: number) => void
  readonly stop: () => void
}

const PLAIN_EVERY_MS = 5000

const rate = (rows: number, startedAt: number) => {
  const seconds = (Date.now() - startedAt) / 1000
  return seconds <= 0 ? 0 : Math.round(rows / seconds)
}

const grouped = (n: number) => n.toLocaleString("en-US")

export const makeImportProgress = (fileBytes: number, stream: NodeJS.WriteStream = process.stderr): ImportProgress => {
  const startedAt = Date.now()
  let bytes = 0
  let rows = 0
  let problems = 0
  if (stream.isTTY === true) {
    const bar = new SingleBar({
      stream,
      format: "importing |{bar}| {percentage}% | {rows} rows | {rate} rows/s | {problems} problems",
      barCompleteChar: "\u2588",
      barIncompleteChar: "\u2591",
      hideCursor: true,
      etaBuffer: 50
    })
    bar.start(Math.max(fileBytes, 1), 0, { rows: "0", rate: "0", problems: "0" })
    const show = () => bar.update(bytes, { rows: grouped(rows), rate: grouped(rate(rows, startedAt)), problems: grouped(problems) })
    return {
      read: (n) => {
        bytes += n
        show()
      },
      rows: (total, failed) => {
        rows = total
        problems = failed
        show()
      },
      stop: () => {
        show()
        bar.stop()
      }
    }
  }
  let shownAt = startedAt
  const line = () => {
    const percent = fileBytes === 0 ? 100 : Math.floor((bytes / fileBytes) * 100)
    stream.write(`roster: importing: ${percent}%, ${grouped(rows)} rows, ${grouped(rate(rows, startedAt))} rows/s, ${grouped(problems)} problems\n`)
  }
  return {
    read: (n) => {
      bytes += n
    },
    rows: (total, failed) => {
      rows = total
      problems = failed
      if (Date.now() - shownAt >= PLAIN_EVERY_MS) {
        shownAt = Date.now()
        line()
      }
    },
    stop: () => {}
  }
}
