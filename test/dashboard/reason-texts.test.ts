/**
 * The catalogue of refusal reasons in each language the dashboard speaks: every reason has words
 * in both, and the German words are German, not the English ones left in place.
 */
import { englishReasonWords, type Reason, type ReasonKey, type ReasonParams, reason, reasonText } from "@roster/domain"
import { describe, expect, it } from "vitest"
import { reasonTexts } from "../../adapters/http/dashboard/reason-texts.js"

/** Parameters for every reason: a reason added to the catalogue without them does not compile. */
const samples: { readonly [K in ReasonKey]: ReasonParams<K> } = {
  empty: {},
  tooLong: { max: 100 },
  controlCharacters: {},
  unstorable: {},
  emailSpaces: {},
  emailUnicode: {},
  emailOneAt: {},
  emailNoLocalPart: {},
  emailLocalPartTooLong: { max: 64 },
  emailLocalPartCharacter: {},
  emailLocalPartDots: {},
  emailNoDomain: {},
  emailDomainDot: {},
  emailDomainEmptyLabel: {},
  emailDomainLabelTooLong: { max: 63 },
  emailDomainCharacter: {},
  emailDomainNumber: {},
  notAnEmailAddress: {},
  slugCharacters: {},
  slugFromName: {},
  metadataKeys: { max: 64 },
  metadataEmptyKey: {},
  metadataKeyTooLong: { max: 100 },
  metadataUnstorable: {},
  metadataTooLarge: { max: 16384 },
  domainAscii: {},
  domainHostOnly: {},
  domainDot: {},
  domainEmptyLabel: {},
  domainLabelTooLong: { max: 63 },
  domainLabelCharacters: {},
  domainIpAddress: {},
  domainOfService: { domain: "roster.example" },
  domainProviderRefused: { reason: "invalid domain" },
  senderNeedsPlan: { tier: "enterprise", defaultAddress: "mail@roster.example" },
  senderNeedsDomain: {},
  senderOffDomain: { domain: "news.example.com" },
  senderDomainUnverified: { domain: "news.example.com", status: "pending" },
  senderAddress: { inner: reason("emailOneAt") },
  customRateLimit: { topTier: "enterprise", tier: "free", perMinute: 100 },
  noPriceConfigured: {},
  unknownPrice: { prices: "price_1 (pro)" },
  noTagWithId: { id: "7d0f" },
  noTagNamed: { name: "vip" },
  noTagNamedQuoted: { name: "vip" },
  noTagNamedNeedsScope: { name: "vip" },
  tagsByIdOrName: {},
  localeWithoutDoubleOptIn: {},
  tagInBothLists: {},
  filterTagUnknown: { id: "0190d1a6-7f80-7000-8000-000000000002" },
  tooManyFormTags: { max: 20 },
  scopesBeyondCaller: {},
  apiKeyRevoked: {},
  ownAdminFlag: {},
  ownSuspension: {},
  ownDeletion: {},
  pageNumber: {},
  pageSize: { min: 1, max: 100 },
  pageBeyond: {},
  sortUnknown: { field: "age", fields: "email, created_at" },
  sortTwice: { field: "email" },
  cursorForeign: {},
  cursorOfOtherSort: { sort: "email", order: "asc" },
  cursorOfOtherList: {},
  notAnEventId: {},
  idempotencyKey: { max: 255 },
  toOrSubscriber: {},
  notASubscriber: {},
  templateOrContent: {},
  subjectRequired: {},
  bodyRequired: {},
  renderedEmpty: {},
  templateBody: {},
  templateDeleted: {},
  uploadGivenUp: {},
  noTemplateWithId: { id: "0190d1a6-7f80-7000-8000-000000000001" },
  audienceTooManyTags: { max: 20 },
  audienceTagTwice: {},
  audienceTagExcluded: { id: "7d0f" },
  audienceEmpty: {},
  audienceSegmentOrTags: {},
  noSegmentWithId: { id: "0190d1a6-7f80-7000-8000-000000000003" },
  scheduleInPast: {},
  scheduleTooFar: {},
  schedulePassed: {},
  triggerTemplate: {},
  triggerTagEvent: {},
  noFormWithId: { id: "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10" },
  unknownTimeZone: {},
  enrolledOnce: {},
  enrolledNow: {},
  webhookEndpoints: { max: 10 },
  unknownEncoding: { name: "ebcdic" },
  fileEmpty: {},
  fileNotText: {},
  quoteNotClosed: {},
  rowTooLong: { max: 1048576 },
  notCsv: { detail: "Invalid Record Length" },
  headerColumns: { count: 300, max: 200 },
  headerMetadataNoKey: { column: 3, name: "metadata.", prefix: "metadata." },
  headerMetadataKeyTooLong: { column: 3, max: 100 },
  headerMetadataTwice: { first: 2, second: 3, name: "metadata.plan" },
  headerColumnTwice: { first: 1, firstName: "email", second: 2, secondName: "E-Mail", field: "email" },
  headerNoEmail: { names: "'name', 'city'" },
  headerMetadataColumns: { count: 65, max: 64 },
  organizationGone: {},
  rowCells: { cells: 3, columns: 4 },
  rowNotInEncoding: {},
  cellEmpty: {},
  statusOneOf: { statuses: "active, unsubscribed, bounced, complained" },
  statusMove: { from: "unsubscribed", to: "bounced", actor: "import" },
  rowTooManyTags: { max: 50 },
  rowEmailTwice: { first: 2 },
  rowKeptChanging: {},
  rowPlanFull: { tier: "free", max: 1000 },
  rowTagsFull: { name: "vip", max: 1000 },
  rowErased: {},
  rowSubscriberTags: { count: 101, max: 100 },
  rowTagName: { name: "v\u0007ip", inner: reason("controlCharacters") },
  rowMetadataMerged: { inner: reason("metadataKeys", { max: 64 }) },
  filterNodeNotObject: { given: { kind: "array" } },
  filterTooManyNodes: { max: 100 },
  filterTooDeep: { max: 8 },
  filterBesideGroup: { group: "all" },
  filterNotNodes: { given: { kind: "object" } },
  filterGroupTooLong: { max: 100 },
  filterNotArray: { given: { kind: "value", json: "\"vip\"" } },
  filterListTooLong: { max: 100 },
  filterNotString: { given: { kind: "value", json: "42" } },
  filterNotInstant: { given: { kind: "value", json: "\"yesterday\"" } },
  filterNotScalar: { given: { kind: "value", json: "null" } },
  filterUnknownKey: {},
  filterFieldRequired: {},
  filterUnknownField: { fields: "status, tags, email" },
  filterUnknownOperator: { field: "tags", operators: "has_any, has_all, has_none" },
  filterValueRequired: {},
  filterTagId: {},
  filterBetween: {},
  filterMetadataPathKeys: { max: 5 },
  filterMetadataPathKey: { key: "\"1st\"" },
  filterNoValue: { op: "exists" },
  filterNotNumberOrDate: { given: { kind: "value", json: "true" } },
  filterDays: { max: 3650 },
  foreign: { text: "unknown filter: explode" }
}

const reasons = (Object.keys(samples) as Array<ReasonKey>).map((key) => ({ key, params: samples[key] }) as Reason)

/** Reasons whose words come from another program and are shown as it wrote them, in every language. */
const untranslated: ReadonlySet<ReasonKey> = new Set(["foreign"])

describe("the refusal reasons in the dashboard's languages", () => {
  it("has the same reasons in English and German, and words each in both", () => {
    expect(Object.keys(reasonTexts.de).sort()).toEqual(Object.keys(englishReasonWords).sort())
    expect(Object.keys(samples).sort()).toEqual(Object.keys(englishReasonWords).sort())
    for (const given of reasons) {
      expect(reasonText(given, reasonTexts.en), given.key).not.toBe("")
      expect(reasonText(given, reasonTexts.de), given.key).not.toBe("")
    }
  })

  it("words every catalogued reason in German differently from English", () => {
    for (const given of reasons.filter(({ key }) => !untranslated.has(key))) {
      expect(reasonText(given, reasonTexts.de), given.key).not.toBe(reasonText(given, reasonTexts.en))
    }
  })

  it("words a reason in English as the wire forms did before the catalogue", () => {
    expect(reasonText(reason("tooLong", { max: 100 }))).toBe("must be at most 100 characters")
    expect(reasonText(reason("senderAddress", { inner: reason("emailOneAt") }))).toBe(
      "must contain exactly one @; give the address alone, without a name"
    )
    expect(reasonText(reason("senderAddress", { inner: reason("emailOneAt") }), reasonTexts.de)).toBe(
      "muss genau ein @ enthalten; geben Sie die Adresse allein an, ohne Namen"
    )
  })

  it("fills every parameter into the German words", () => {
    expect(reasonText(reason("headerColumns", { count: 300, max: 200 }), reasonTexts.de)).toBe(
      "die Kopfzeile hat 300 Spalten; ein Import liest höchstens 200"
    )
  })
})
