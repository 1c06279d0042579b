import { Schema } from "effect"

/**
 * Why an input is refused, as data: a catalogued reason and its parameters. The wire forms word a
 * reason in English with {@link reasonText} (the `problem` of their error bodies); the dashboard
 * words it in the language of the person looking, with its own {@link ReasonWords} typed against
 * these, so that a reason without German words does not compile.
 */

/** Words a reason may hold inside it (another reason, when a refusal builds on one). */
type Say = (inner: Reason) => string

/** What was given where a value of another kind was needed: a list, an object, or a value itself (its JSON text). */
export type Given =
  | { readonly kind: "array" }
  | { readonly kind: "object" }
  | { readonly kind: "value"; readonly json: string }

/** What was given, in English words: `an array`, `an object`, or the value's JSON text. */
const givenText = (given: Given): string => given.kind === "value" ? given.json : `an ${given.kind}`

/** Reasons that stand alone; {@link composedWords} builds on them. */
const plainWords = {
  // Text of any kind
  empty: () => "must not be empty",
  tooLong: ({ max }: { readonly max: number }) => `must be at most ${max} characters`,
  controlCharacters: () => "must not contain control characters",
  unstorable: () => "must be valid Unicode text without NUL characters",
  // Email addresses
  emailSpaces: () => "must not contain spaces or control characters",
  emailUnicode: () => "must be valid Unicode text",
  emailOneAt: () => "must contain exactly one @",
  emailNoLocalPart: () => "must have a local part before the @",
  emailLocalPartTooLong: ({ max }: { readonly max: number }) => `local part must be at most ${max} characters`,
  emailLocalPartCharacter: () => "local part contains a character that is not allowed",
  emailLocalPartDots: () => "local part must not start or end with a dot or contain two dots in a row",
  emailNoDomain: () => "must have a domain after the @",
  emailDomainDot: () => "domain must contain a dot",
  emailDomainEmptyLabel: () => "domain must not have empty labels",
  emailDomainLabelTooLong: ({ max }: { readonly max: number }) => `domain labels must be at most ${max} characters`,
  emailDomainCharacter: () => "domain contains a character that is not allowed",
  emailDomainNumber: () => "domain must end in a name, not a number",
  notAnEmailAddress: () => "must be an email address",
  // Slugs
  slugCharacters: () => "must be lower-case letters, digits and single hyphens between them",
  slugFromName: () => "cannot be made from the name; give one",
  // Metadata
  metadataKeys: ({ max }: { readonly max: number }) => `must have at most ${max} keys`,
  metadataEmptyKey: () => "keys must not be empty",
  metadataKeyTooLong: ({ max }: { readonly max: number }) => `keys must be at most ${max} characters`,
  metadataUnstorable: () => "keys and values must be valid Unicode text without NUL characters",
  metadataTooLarge: ({ max }: { readonly max: number }) => `must be at most ${max} bytes as JSON`,
  // Sending domains and sending addresses
  domainAscii: () => "must be a host name in ASCII; write an internationalized name in its xn-- form",
  domainHostOnly: () => "must be a host name alone, such as news.example.com, without scheme, port or path",
  domainDot: () => "must be a host name with a dot, such as news.example.com",
  domainEmptyLabel: () => "must not have empty labels",
  domainLabelTooLong: ({ max }: { readonly max: number }) => `labels must be at most ${max} characters`,
  domainLabelCharacters: () =>
    "labels may hold letters, digits and hyphens only, and may not start or end with a hyphen",
  domainIpAddress: () => "must be a host name, not an IP address",
  domainOfService: ({ domain }: { readonly domain: string }) => `${domain} is the service's own domain; use a domain of yours`,
  domainProviderRefused: ({ reason }: { readonly reason: string }) => `the email provider refused it: ${reason}`,
  senderNeedsPlan: ({ tier, defaultAddress }: { readonly tier: string; readonly defaultAddress: string }) =>
    `a sending address of your own needs a verified custom domain, which the ${tier} plan offers; ` +
    `until then email comes from ${defaultAddress}, with your from_name`,
  senderNeedsDomain: () =>
    "a sending address of your own needs a verified custom domain; add one at /settings/email/domain first",
  senderOffDomain: ({ domain }: { readonly domain: string }) => `must be an address on your custom domain ${domain}`,
  senderDomainUnverified: ({ domain, status }: { readonly domain: string; readonly status: string }) =>
    `your custom domain ${domain} is ${status}, not verified yet; add its DNS records and check it at /settings/email/domain`,
  // Plans and billing
  customRateLimit: ({ topTier, tier, perMinute }: { readonly topTier: string; readonly tier: string; readonly perMinute: number }) =>
    `a custom rate limit needs the ${topTier} plan; ${tier} allows ${perMinute} requests a minute`,
  noPriceConfigured: () => "no price is configured on this service (STRIPE_PRICE_PRO, STRIPE_PRICE_ENTERPRISE)",
  unknownPrice: ({ prices }: { readonly prices: string }) => `must be one of the plans' prices: ${prices}`,
  // Tags
  noTagWithId: ({ id }: { readonly id: string }) => `no tag with id ${id} in this organization`,
  noTagNamed: ({ name }: { readonly name: string }) => `no tag named '${name}' in this organization`,
  noTagNamedQuoted: ({ name }: { readonly name: string }) => `no tag is named "${name}"`,
  noTagNamedNeedsScope: ({ name }: { readonly name: string }) =>
    `no tag named '${name}' in this organization, and making one needs the scope tags:write`,
  tagsByIdOrName: () => "name tags by id or by name, not both",
  localeWithoutDoubleOptIn: () => "is the language of the confirmation email; give it only with double_opt_in: true",
  tagInBothLists: () => "is also to be added; name a tag in one list only",
  filterTagUnknown: ({ id }: { readonly id: string }) => `names no tag of this organization (${id})`,
  tooManyFormTags: ({ max }: { readonly max: number }) => `must list at most ${max} tags`,
  // API keys and administration
  scopesBeyondCaller: () => "must not grant more than the caller holds",
  apiKeyRevoked: () => "the key is revoked and cannot be rotated; create a new one",
  ownAdminFlag: () => "the organization you act for cannot drop its own flag",
  ownSuspension: () => "the organization you act for cannot suspend itself",
  ownDeletion: () => "the organization you act for cannot delete itself",
  // Lists
  pageNumber: () => "must be a whole number of at least 1",
  pageSize: ({ min, max }: { readonly min: number; readonly max: number }) => `must be a whole number from ${min} to ${max}`,
  pageBeyond: () => "is beyond any page this list can have",
  sortUnknown: ({ field, fields }: { readonly field: string; readonly fields: string }) =>
    `cannot sort by '${field}'; sort by ${fields}`,
  sortTwice: ({ field }: { readonly field: string }) => `names '${field}' more than once`,
  cursorForeign: () => "is not a cursor this service issued",
  cursorOfOtherSort: ({ sort, order }: { readonly sort: string; readonly order: string }) =>
    `belongs to sort=${sort}&order=${order}; repeat the query with those, or drop the cursor`,
  cursorOfOtherList: () => "is not a cursor of this list of deliveries",
  notAnEventId: () => "is not the id of an event",
  idempotencyKey: ({ max }: { readonly max: number }) => `must be 1 to ${max} printable ASCII characters, such as a UUID`,
  // Emails, campaigns, templates, triggers, webhooks
  toOrSubscriber: () => "give either to (an address) or subscriber_id, not both",
  notASubscriber: () => "is not a subscriber of this organization; create the subscriber first",
  templateOrContent: () => "give either template_id or subject with html and/or text, not both",
  subjectRequired: () => "is required without template_id",
  bodyRequired: () => "give html, text or both without template_id",
  renderedEmpty: () => "rendered empty for this recipient",
  templateBody: () => "a template needs an HTML body, a text body or both",
  templateDeleted: () => "the campaign's template was deleted; choose another one",
  uploadGivenUp: () => "came in so slowly that the upload was given up; upload the file again",
  noTemplateWithId: ({ id }: { readonly id: string }) => `no template with id ${id} in this organization`,
  audienceTooManyTags: ({ max }: { readonly max: number }) => `may name at most ${max} tags`,
  audienceTagTwice: () => "names a tag twice",
  audienceTagExcluded: ({ id }: { readonly id: string }) => `tag ${id} is also in audience.tag_ids`,
  audienceEmpty: () => "holds no subscriber who would receive this campaign",
  audienceSegmentOrTags: () => "give either segment_id or tag_ids, not both: a segment names its tags itself",
  noSegmentWithId: ({ id }: { readonly id: string }) => `no segment with id ${id} in this organization`,
  scheduleInPast: () => "must be in the future",
  scheduleTooFar: () => "must be within a year",
  schedulePassed: () => "has passed; set a time to come, or remove it to send now",
  triggerTemplate: () => "is required: the template the trigger sends",
  triggerTagEvent: () => "applies to the event tag.subscribed only",
  noFormWithId: ({ id }: { readonly id: string }) => `no form with id ${id} in this organization`,
  enrolledOnce: () => "was in this sequence before, and it enrolls a subscriber once (re_entry: once)",
  enrolledNow: () => "is in this sequence now; remove them first to start again",
  unknownTimeZone: () => "must be an IANA time zone, such as Europe/Berlin or America/New_York",
  webhookEndpoints: ({ max }: { readonly max: number }) => `an organization may register at most ${max} webhook endpoints`,
  // Imports
  unknownEncoding: ({ name }: { readonly name: string }) =>
    `'${name}' is not an encoding this service reads (utf-8, utf-16le, windows-1252, iso-8859-1, ...)`,
  fileEmpty: () => "the file is empty",
  fileNotText: () =>
    "the file is not text (it holds NUL bytes): send a CSV file, saved as UTF-8 (or UTF-16 with a byte-order mark)",
  quoteNotClosed: () => "a quoted cell starts on this line and is never closed",
  rowTooLong: ({ max }: { readonly max: number }) =>
    `the row is longer than ${max} bytes (a quote left open, or a file that is not CSV)`,
  notCsv: ({ detail }: { readonly detail: string }) => `the file cannot be read as CSV here (${detail})`,
  headerColumns: ({ count, max }: { readonly count: number; readonly max: number }) =>
    `the header has ${count} columns; an import reads at most ${max}`,
  headerMetadataNoKey: ({ column, name, prefix }: { readonly column: number; readonly name: string; readonly prefix: string }) =>
    `column ${column} ('${name}') names no metadata key after '${prefix}'`,
  headerMetadataKeyTooLong: ({ column, max }: { readonly column: number; readonly max: number }) =>
    `column ${column} names a metadata key longer than ${max} characters`,
  headerMetadataTwice: ({ first, second, name }: { readonly first: number; readonly second: number; readonly name: string }) =>
    `columns ${first} and ${second} are both '${name}'`,
  headerColumnTwice: (
    { first, firstName, second, secondName, field }: {
      readonly first: number
      readonly firstName: string
      readonly second: number
      readonly secondName: string
      readonly field: string
    }
  ) => `columns ${first} ('${firstName}') and ${second} ('${secondName}') are both read as ${field}`,
  headerNoEmail: ({ names }: { readonly names: string }) =>
    "the first line must name the columns, one of them 'email'" + (names === "" ? "; it names none" : `; it names ${names}`),
  headerMetadataColumns: ({ count, max }: { readonly count: number; readonly max: number }) =>
    `the header has ${count} metadata columns; a subscriber holds at most ${max} metadata keys`,
  organizationGone: () => "the organization no longer exists",
  // An import's rows
  rowCells: ({ cells, columns }: { readonly cells: number; readonly columns: number }) =>
    `has ${cells} cells where the header has ${columns} columns`,
  rowNotInEncoding: () => "holds bytes that are not text in the file's encoding (save the file as UTF-8, or name its encoding)",
  cellEmpty: () => "is empty",
  statusOneOf: ({ statuses }: { readonly statuses: string }) => `must be one of ${statuses}`,
  statusMove: ({ actor, from, to }: { readonly from: string; readonly to: string; readonly actor: string }) =>
    `a subscriber cannot move from ${from} to ${to} through the ${actor}`,
  rowTooManyTags: ({ max }: { readonly max: number }) => `names more than ${max} tags`,
  rowEmailTwice: ({ first }: { readonly first: number }) => `is also on line ${first}; only the first row with an address is imported`,
  rowKeptChanging: () => "the subscriber kept changing during the import; import the row again",
  rowPlanFull: ({ max, tier }: { readonly tier: string; readonly max: number }) =>
    `the organization's plan (${tier}) holds at most ${max} subscribers, and it is full`,
  rowTagsFull: ({ max, name }: { readonly name: string; readonly max: number }) =>
    `no tag named '${name}' in this organization, and it holds ${max} tags, the most it may (tags_per_organization)`,
  rowErased: () => "the subscriber asked to be erased; an import does not bring them back",
  rowSubscriberTags: ({ count, max }: { readonly count: number; readonly max: number }) =>
    `the subscriber would carry ${count} tags; a subscriber may carry at most ${max} (tags_per_subscriber)`,
  // Segment filters (`given` is what was given instead)
  filterNodeNotObject: ({ given }: { readonly given: Given }) =>
    `must be an object: a group (all, any, not) or a condition (field, op, value), not ${givenText(given)}`,
  filterTooManyNodes: ({ max }: { readonly max: number }) => `a filter holds at most ${max} nodes`,
  filterTooDeep: ({ max }: { readonly max: number }) => `a filter nests at most ${max} levels deep`,
  filterBesideGroup: ({ group }: { readonly group: string }) =>
    `is not allowed beside "${group}": a node is one group or one condition`,
  filterNotNodes: ({ given }: { readonly given: Given }) => `must be an array of nodes, not ${givenText(given)}`,
  filterGroupTooLong: ({ max }: { readonly max: number }) => `must hold at most ${max} nodes`,
  filterNotArray: ({ given }: { readonly given: Given }) => `must be an array, not ${givenText(given)}`,
  filterListTooLong: ({ max }: { readonly max: number }) => `must hold at most ${max} values`,
  filterNotString: ({ given }: { readonly given: Given }) => `must be a string, not ${givenText(given)}`,
  filterNotInstant: ({ given }: { readonly given: Given }) =>
    `must be a date (YYYY-MM-DD) or a date and time with a zone (2025-01-31T09:00:00Z), not ${givenText(given)}`,
  filterNotScalar: ({ given }: { readonly given: Given }) => `must be a string, a number or a boolean, not ${givenText(given)}`,
  filterUnknownKey: () => "is not a key of a node: a group is all, any or not; a condition is field, op and value",
  filterFieldRequired: () => "is required: a node is a group (all, any, not) or a condition (field, op, value)",
  filterUnknownField: ({ fields }: { readonly fields: string }) => `must be one of ${fields}`,
  filterUnknownOperator: ({ field, operators }: { readonly field: string; readonly operators: string }) =>
    `must be one of ${operators} for ${field}`,
  filterValueRequired: () => "is required",
  filterTagId: () => "must be a tag id (a UUID)",
  filterBetween: () => "must be [from, to]: two instants",
  filterMetadataPathKeys: ({ max }: { readonly max: number }) => `a metadata path has at most ${max} keys`,
  filterMetadataPathKey: ({ key }: { readonly key: string }) =>
    `metadata path key ${key} must start with a letter or _ and hold only letters, digits, _ and -`,
  filterNoValue: ({ op }: { readonly op: string }) => `${op} takes no value`,
  filterNotNumberOrDate: ({ given }: { readonly given: Given }) => `must be a number or a date, not ${givenText(given)}`,
  filterDays: ({ max }: { readonly max: number }) => `must be a whole number of days from 1 to ${max}`,
  /** Words of another program (a template engine, a network check), passed on as they are. */
  foreign: ({ text }: { readonly text: string }) => text
}

type PlainWords = typeof plainWords

/** The parameters of a reason worded without any. */
type NoParams = Record<never, never>

type ParamsOf<F> = F extends (params: infer P, ...rest: ReadonlyArray<never>) => string ? unknown extends P ? NoParams : P : never

/** A reason that stands alone. */
export type PlainReason = { readonly [K in keyof PlainWords]: { readonly key: K; readonly params: ParamsOf<PlainWords[K]> } }[
  keyof PlainWords
]

/** Reasons that build on another one. */
const composedWords = {
  senderAddress: ({ inner }: { readonly inner: PlainReason }, say: Say) => `${say(inner)}; give the address alone, without a name`,
  rowTagName: ({ inner, name }: { readonly name: string; readonly inner: PlainReason }, say: Say) => `'${name}' ${say(inner)}`,
  rowMetadataMerged: ({ inner }: { readonly inner: PlainReason }, say: Say) => `once merged with the subscriber's, ${say(inner)}`
}

type Words = PlainWords & typeof composedWords

/** The name of a reason in the catalogue. */
export type ReasonKey = keyof Words

/** The parameters a reason is worded with. */
export type ReasonParams<K extends ReasonKey> = ParamsOf<Words[K]>

/** Why an input is refused: a catalogued reason and its parameters. */
export type Reason = { readonly [K in ReasonKey]: { readonly key: K; readonly params: ReasonParams<K> } }[ReasonKey]

/** How one language words every reason; `say` words a reason a reason holds. */
export type ReasonWords = { readonly [K in ReasonKey]: (params: ReasonParams<K>, say: Say) => string }

/** The English words of every reason: the `problem` texts of the wire forms. */
export const englishReasonWords: ReasonWords = { ...plainWords, ...composedWords }

/** A reason of the catalogue: `reason("tooLong", { max: 100 })`, `reason("empty")`. */
export const reason = <K extends ReasonKey>(
  key: K,
  ...params: NoParams extends ReasonParams<K> ? [] : [ReasonParams<K>]
): Extract<Reason, { readonly key: K }> => ({ key, params: params[0] ?? {} }) as unknown as Extract<Reason, { readonly key: K }>

/** A reason worded in a language, English unless other words are given. */
export const reasonText = (given: Reason, words: ReasonWords = englishReasonWords): string =>
  (words[given.key] as (params: unknown, say: Say) => string)(given.params, (inner) => reasonText(inner, words))

/** The English words of a reason, or `undefined` for none: what a `Schema.filter` reports. */
export const reasonTextOf = (given: Reason | undefined): string | undefined =>
  given === undefined ? undefined : reasonText(given)

const reasonKeys = new Set(Object.keys(englishReasonWords))

/** A reason as an error carries it (never encoded: errors reach a client through their wire form's words). */
export const ReasonSchema: Schema.Schema<Reason> = Schema.declare(
  (input: unknown): input is Reason =>
    typeof input === "object" && input !== null && "key" in input && reasonKeys.has(String(input.key)) && "params" in input,
  { identifier: "Reason" }
)
