/**
 * What a first visit to the dashboard costs a browser (BENCH_SUITE=dashboard): the sign-in page
 * and the script and stylesheet it names, fetched from the bench's API process as a browser asks
 * for them (`Accept-Encoding: br, gzip`), counted as the bytes that cross the wire, beside the same
 * without compression. Later visits load only the page: the assets are kept for a year.
 */

/** A first visit's script and style, compressed, should stay below this. */
const TARGET_BYTES = 50 * 1024

const bytesOf = async (url: string, encoding: string) => {
  const response = await fetch(url, { headers: { "accept-encoding": encoding, accept: "text/html,*/*" } })
  // fetch decodes the body; the wire's size is the declared length, or the body's when nothing was declared.
  const declared = response.headers.get("content-length")
  const body = Buffer.from(await response.arrayBuffer())
  const size = declared !== null && response.headers.get("content-encoding") !== null ? Number(declared) : body.length
  return { size, text: body.toString("utf8"), encoding: response.headers.get("content-encoding") ?? "identity" }
}

export const runDashboardBench = async (base: string) => {
  const page = await bytesOf(`${base}/app/sign-in`, "br, gzip")
  const script = /<script src="([^"]+)"/.exec(page.text)?.[1]
  const style = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)?.[1]
  if (script === undefined || style === undefined) throw new Error("the sign-in page names no script or stylesheet")
  const kb = (n: number) => `${(n / 1024).toFixed(1).padStart(6)} KB`
  console.log("dashboard, first visit (the sign-in page and what it loads):")
  let assets = 0
  for (const [what, path] of [["page", "/app/sign-in"], ["script", script], ["style", style]] as const) {
    const wire = await bytesOf(`${base}${path}`, "br, gzip")
    const plain = await bytesOf(`${base}${path}`, "identity")
    if (what !== "page") assets += wire.size
    console.log(`  ${what.padEnd(8)} ${kb(wire.size)} ${wire.encoding.padEnd(8)} (${kb(plain.size).trim()} uncompressed)`)
  }
  console.log(`  script and style together ${kb(assets).trim()}   (target ≤ ${TARGET_BYTES / 1024} KB compressed)`)
}
