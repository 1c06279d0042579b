/**
 * An instant as the service writes it everywhere (answers, events, logs): ISO 8601 in UTC with
 * milliseconds, exactly what `Date.prototype.toISOString` writes. V8 writes that string in its
 * runtime, at a microsecond or so each, and a request writes several (its answer's dates, its
 * event's, its log line's); here the text of the day is kept and the time of day put together
 * from tables, at a tenth of that.
 */

const MS_PER_DAY = 86_400_000
const twoDigits = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"))
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"))

/** The day last written: its first millisecond, the next day's, and its text up to the `T`. */
let dayStart = Number.NaN
let nextDayStart = Number.NaN
let dayText = ""

export const instantText = (date: Date): string => {
  const ms = date.getTime()
  if (!(ms >= dayStart && ms < nextDayStart)) {
    // Also an invalid date, which toISOString refuses with its RangeError.
    const start = ms - (((ms % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY)
    dayText = new Date(start).toISOString().slice(0, -13)
    dayStart = start
    nextDayStart = start + MS_PER_DAY
  }
  let rest = ms - dayStart
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  return `${dayText}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[rest - seconds * 1000]}Z`
}
