import packageJson from "../../../package.json" with { type: "json" }

/** The version of the running service, as `GET /health` reports it. */
export const serviceVersion: string = packageJson.version
