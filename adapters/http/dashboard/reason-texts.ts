import { englishReasonWords, type Given, type ReasonWords } from "@roster/domain"

/**
 * The reasons a use case refuses an input for (domain/src/reason.ts), in each language the
 * dashboard speaks. English is the wire forms' own wording; German is typed against the same
 * catalogue, so a reason without German words does not compile.
 */

/** What a segment filter was given instead, in German: a list, an object, or the value's JSON text. */
const givenDe = (given: Given): string => given.kind === "array" ? "eine Liste" : given.kind === "object" ? "ein Objekt" : given.json

const de: ReasonWords = {
  empty: () => "darf nicht leer sein",
  tooLong: ({ max }) => `darf höchstens ${max} Zeichen lang sein`,
  controlCharacters: () => "darf keine Steuerzeichen enthalten",
  unstorable: () => "muss gültiger Unicode-Text ohne NUL-Zeichen sein",
  emailSpaces: () => "darf keine Leer- oder Steuerzeichen enthalten",
  emailUnicode: () => "muss gültiger Unicode-Text sein",
  emailOneAt: () => "muss genau ein @ enthalten",
  emailNoLocalPart: () => "braucht vor dem @ einen Namen",
  emailLocalPartTooLong: ({ max }) => `der Teil vor dem @ darf höchstens ${max} Zeichen lang sein`,
  emailLocalPartCharacter: () => "der Teil vor dem @ enthält ein unzulässiges Zeichen",
  emailLocalPartDots: () =>
    "der Teil vor dem @ darf nicht mit einem Punkt beginnen oder enden und keine zwei Punkte hintereinander enthalten",
  emailNoDomain: () => "braucht nach dem @ eine Domain",
  emailDomainDot: () => "die Domain muss einen Punkt enthalten",
  emailDomainEmptyLabel: () => "die Domain darf keine leeren Teile haben",
  emailDomainLabelTooLong: ({ max }) => `die Teile der Domain dürfen höchstens ${max} Zeichen lang sein`,
  emailDomainCharacter: () => "die Domain enthält ein unzulässiges Zeichen",
  emailDomainNumber: () => "die Domain muss auf einen Namen enden, nicht auf eine Zahl",
  notAnEmailAddress: () => "muss eine E-Mail-Adresse sein",
  slugCharacters: () => "darf nur Kleinbuchstaben und Ziffern enthalten, mit einzelnen Bindestrichen dazwischen",
  slugFromName: () => "lässt sich nicht aus dem Namen bilden; geben Sie einen an",
  metadataKeys: ({ max }) => `darf höchstens ${max} Schlüssel haben`,
  metadataEmptyKey: () => "Schlüssel dürfen nicht leer sein",
  metadataKeyTooLong: ({ max }) => `Schlüssel dürfen höchstens ${max} Zeichen lang sein`,
  metadataUnstorable: () => "Schlüssel und Werte müssen gültiger Unicode-Text ohne NUL-Zeichen sein",
  metadataTooLarge: ({ max }) => `darf als JSON höchstens ${max} Bytes groß sein`,
  domainAscii: () => "muss ein Hostname in ASCII sein; schreiben Sie einen internationalen Namen in seiner xn---Form",
  domainHostOnly: () => "muss ein Hostname allein sein, etwa news.example.com, ohne Schema, Port oder Pfad",
  domainDot: () => "muss ein Hostname mit Punkt sein, etwa news.example.com",
  domainEmptyLabel: () => "darf keine leeren Teile haben",
  domainLabelTooLong: ({ max }) => `die Teile dürfen höchstens ${max} Zeichen lang sein`,
  domainLabelCharacters: () =>
    "die Teile dürfen nur Buchstaben, Ziffern und Bindestriche enthalten und nicht mit einem Bindestrich beginnen oder enden",
  domainIpAddress: () => "muss ein Hostname sein, keine IP-Adresse",
  domainOfService: ({ domain }) => `${domain} ist die Domain des Dienstes selbst; verwenden Sie eine eigene Domain`,
  domainProviderRefused: ({ reason }) => `der E-Mail-Anbieter hat sie abgelehnt: ${reason}`,
  senderNeedsPlan: ({ defaultAddress, tier }) =>
    `eine eigene Absenderadresse braucht eine bestätigte eigene Domain, die der Tarif ${tier} bietet; ` +
    `bis dahin kommen E-Mails von ${defaultAddress}, mit Ihrem Absendernamen`,
  senderNeedsDomain: () => "eine eigene Absenderadresse braucht eine bestätigte eigene Domain; fügen Sie zuerst eine hinzu",
  senderOffDomain: ({ domain }) => `muss eine Adresse Ihrer eigenen Domain ${domain} sein`,
  senderDomainUnverified: ({ domain, status }) =>
    `Ihre eigene Domain ${domain} ist ${status}, noch nicht bestätigt; legen Sie ihre DNS-Einträge an und prüfen Sie sie`,
  senderAddress: ({ inner }, say) => `${say(inner)}; geben Sie die Adresse allein an, ohne Namen`,
  rowTagName: ({ inner, name }, say) => `„${name}“ ${say(inner)}`,
  rowMetadataMerged: ({ inner }, say) => `zusammen mit den Metadaten des Abonnenten: ${say(inner)}`,
  customRateLimit: ({ perMinute, tier, topTier }) =>
    `eine eigene Anfragegrenze braucht den Tarif ${topTier}; ${tier} erlaubt ${perMinute} Anfragen pro Minute`,
  noPriceConfigured: () => "auf diesem Dienst ist kein Preis eingerichtet (STRIPE_PRICE_PRO, STRIPE_PRICE_ENTERPRISE)",
  unknownPrice: ({ prices }) => `muss einer der Preise der Tarife sein: ${prices}`,
  noTagWithId: ({ id }) => `in dieser Organisation gibt es keinen Tag mit der ID ${id}`,
  noTagNamed: ({ name }) => `in dieser Organisation gibt es keinen Tag namens „${name}“`,
  noTagNamedQuoted: ({ name }) => `es gibt keinen Tag namens „${name}“`,
  noTagNamedNeedsScope: ({ name }) =>
    `in dieser Organisation gibt es keinen Tag namens „${name}“, und ihn anzulegen braucht den Bereich tags:write`,
  tagsByIdOrName: () => "nennen Sie Tags über ihre ID oder ihren Namen, nicht beides",
  localeWithoutDoubleOptIn: () => "ist die Sprache der Bestätigungs-E-Mail; geben Sie sie nur mit double_opt_in: true an",
  tagInBothLists: () => "soll auch hinzugefügt werden; nennen Sie einen Tag nur in einer Liste",
  filterTagUnknown: ({ id }) => `nennt keinen Tag dieser Organisation (${id})`,
  tooManyFormTags: ({ max }) => `darf höchstens ${max} Tags nennen`,
  scopesBeyondCaller: () => "darf nicht mehr erlauben, als Sie selbst dürfen",
  apiKeyRevoked: () => "der Schlüssel ist widerrufen und kann nicht erneuert werden; legen Sie einen neuen an",
  ownAdminFlag: () => "die Organisation, für die Sie handeln, kann ihr eigenes Kennzeichen nicht ablegen",
  ownSuspension: () => "die Organisation, für die Sie handeln, kann sich nicht selbst sperren",
  ownDeletion: () => "die Organisation, für die Sie handeln, kann sich nicht selbst löschen",
  pageNumber: () => "muss eine ganze Zahl ab 1 sein",
  pageSize: ({ max, min }) => `muss eine ganze Zahl von ${min} bis ${max} sein`,
  pageBeyond: () => "liegt hinter jeder Seite, die diese Liste haben kann",
  sortUnknown: ({ field, fields }) => `nach „${field}“ lässt sich nicht sortieren; sortieren Sie nach ${fields}`,
  sortTwice: ({ field }) => `nennt „${field}“ mehr als einmal`,
  cursorForeign: () => "ist keine Fortsetzungsmarke dieses Dienstes",
  cursorOfOtherSort: ({ order, sort }) =>
    `gehört zu sort=${sort}&order=${order}; wiederholen Sie die Abfrage damit oder lassen Sie die Marke weg`,
  cursorOfOtherList: () => "ist keine Fortsetzungsmarke dieser Liste von Zustellungen",
  notAnEventId: () => "ist nicht die Kennung eines Ereignisses",
  idempotencyKey: ({ max }) => `muss aus 1 bis ${max} druckbaren ASCII-Zeichen bestehen, etwa einer UUID`,
  toOrSubscriber: () => "geben Sie entweder to (eine Adresse) oder subscriber_id an, nicht beides",
  notASubscriber: () => "ist kein Abonnent dieser Organisation; legen Sie den Abonnenten zuerst an",
  templateOrContent: () => "geben Sie entweder template_id oder subject mit html und/oder text an, nicht beides",
  subjectRequired: () => "ist ohne template_id nötig",
  bodyRequired: () => "geben Sie ohne template_id html, text oder beides an",
  renderedEmpty: () => "ist für diesen Empfänger leer geworden",
  templateBody: () => "eine Vorlage braucht einen HTML-Text, einen reinen Text oder beides",
  templateDeleted: () => "die Vorlage der Kampagne wurde gelöscht; wählen Sie eine andere",
  uploadGivenUp: () => "kam so langsam an, dass das Hochladen abgebrochen wurde; laden Sie die Datei erneut hoch",
  noTemplateWithId: ({ id }) => `keine Vorlage mit der Kennung ${id} in dieser Organisation`,
  audienceTooManyTags: ({ max }) => `darf höchstens ${max} Tags nennen`,
  audienceTagTwice: () => "nennt einen Tag zweimal",
  audienceTagExcluded: ({ id }) => `Tag ${id} steht auch in audience.tag_ids`,
  audienceEmpty: () => "enthält keinen Abonnenten, der diese Kampagne erhielte",
  audienceSegmentOrTags: () => "geben Sie entweder segment_id oder tag_ids an, nicht beides: ein Segment nennt seine Tags selbst",
  noSegmentWithId: ({ id }) => `kein Segment mit der Kennung ${id} in dieser Organisation`,
  scheduleInPast: () => "muss in der Zukunft liegen",
  scheduleTooFar: () => "muss innerhalb eines Jahres liegen",
  schedulePassed: () => "ist verstrichen; wählen Sie eine kommende Zeit oder entfernen Sie sie, um jetzt zu senden",
  triggerTemplate: () => "ist nötig: die Vorlage, die der Auslöser sendet",
  triggerTagEvent: () => "gilt nur für das Ereignis tag.subscribed",
  noFormWithId: ({ id }) => `kein Formular mit der ID ${id} in dieser Organisation`,
  enrolledOnce: () => "war schon in dieser Sequenz, und sie nimmt jeden Abonnenten nur einmal auf (re_entry: once)",
  enrolledNow: () => "ist gerade in dieser Sequenz; nehmen Sie ihn zuerst heraus, um neu zu beginnen",
  unknownTimeZone: () => "muss eine IANA-Zeitzone sein, etwa Europe/Berlin oder America/New_York",
  webhookEndpoints: ({ max }) => `eine Organisation darf höchstens ${max} Webhook-Endpunkte anmelden`,
  unknownEncoding: ({ name }) =>
    `„${name}“ ist keine Zeichenkodierung, die dieser Dienst liest (utf-8, utf-16le, windows-1252, iso-8859-1, ...)`,
  fileEmpty: () => "die Datei ist leer",
  fileNotText: () =>
    "die Datei ist kein Text (sie enthält NUL-Bytes): senden Sie eine CSV-Datei, gespeichert als UTF-8 (oder UTF-16 mit Byte-Order-Mark)",
  quoteNotClosed: () => "eine Zelle in Anführungszeichen beginnt in dieser Zeile und wird nie geschlossen",
  rowTooLong: ({ max }) =>
    `die Zeile ist länger als ${max} Bytes (ein offenes Anführungszeichen oder eine Datei, die kein CSV ist)`,
  notCsv: ({ detail }) => `die Datei lässt sich hier nicht als CSV lesen (${detail})`,
  headerColumns: ({ count, max }) => `die Kopfzeile hat ${count} Spalten; ein Import liest höchstens ${max}`,
  headerMetadataNoKey: ({ column, name, prefix }) => `Spalte ${column} („${name}“) nennt nach „${prefix}“ keinen Metadaten-Schlüssel`,
  headerMetadataKeyTooLong: ({ column, max }) => `Spalte ${column} nennt einen Metadaten-Schlüssel mit mehr als ${max} Zeichen`,
  headerMetadataTwice: ({ first, name, second }) => `Spalten ${first} und ${second} heißen beide „${name}“`,
  headerColumnTwice: ({ field, first, firstName, second, secondName }) =>
    `Spalten ${first} („${firstName}“) und ${second} („${secondName}“) werden beide als ${field} gelesen`,
  headerNoEmail: ({ names }) =>
    "die erste Zeile muss die Spalten benennen, eine davon „email“" + (names === "" ? "; sie nennt keine" : `; sie nennt ${names}`),
  headerMetadataColumns: ({ count, max }) =>
    `die Kopfzeile hat ${count} Metadaten-Spalten; ein Abonnent hat höchstens ${max} Metadaten-Schlüssel`,
  organizationGone: () => "die Organisation gibt es nicht mehr",
  rowCells: ({ cells, columns }) => `hat ${cells} Zellen, wo die Kopfzeile ${columns} Spalten hat`,
  rowNotInEncoding: () =>
    "enthält Bytes, die in der Kodierung der Datei kein Text sind (speichern Sie die Datei als UTF-8 oder geben Sie ihre Kodierung an)",
  cellEmpty: () => "ist leer",
  statusOneOf: ({ statuses }) => `muss einer dieser Werte sein: ${statuses}`,
  statusMove: ({ actor, from, to }) => `ein Abonnent kann nicht durch ${actor} von ${from} zu ${to} wechseln`,
  rowTooManyTags: ({ max }) => `nennt mehr als ${max} Tags`,
  rowEmailTwice: ({ first }) => `steht auch in Zeile ${first}; nur die erste Zeile mit einer Adresse wird importiert`,
  rowKeptChanging: () => "der Abonnent hat sich während des Imports immer wieder geändert; importieren Sie die Zeile noch einmal",
  rowPlanFull: ({ max, tier }) => `der Tarif der Organisation (${tier}) fasst höchstens ${max} Abonnenten, und er ist voll`,
  rowTagsFull: ({ max, name }) =>
    `in dieser Organisation gibt es keinen Tag namens „${name}“, und sie hat schon ${max} Tags, so viele sie darf (tags_per_organization)`,
  rowErased: () => "der Abonnent hat verlangt, gelöscht zu werden; ein Import bringt ihn nicht zurück",
  rowSubscriberTags: ({ count, max }) =>
    `der Abonnent hätte ${count} Tags; ein Abonnent darf höchstens ${max} haben (tags_per_subscriber)`,
  filterNodeNotObject: ({ given }) =>
    `muss ein Objekt sein: eine Gruppe (all, any, not) oder eine Bedingung (field, op, value), nicht ${givenDe(given)}`,
  filterTooManyNodes: ({ max }) => `ein Filter hat höchstens ${max} Knoten`,
  filterTooDeep: ({ max }) => `ein Filter ist höchstens ${max} Ebenen tief verschachtelt`,
  filterBesideGroup: ({ group }) => `ist neben „${group}“ nicht erlaubt: ein Knoten ist eine Gruppe oder eine Bedingung`,
  filterNotNodes: ({ given }) => `muss eine Liste von Knoten sein, nicht ${givenDe(given)}`,
  filterGroupTooLong: ({ max }) => `darf höchstens ${max} Einträge enthalten`,
  filterNotArray: ({ given }) => `muss eine Liste sein, nicht ${givenDe(given)}`,
  filterListTooLong: ({ max }) => `darf höchstens ${max} Einträge enthalten`,
  filterNotString: ({ given }) => `muss Text sein, nicht ${givenDe(given)}`,
  filterNotInstant: () => "muss ein Datum sein (JJJJ-MM-TT) oder ein Datum mit Uhrzeit und Zone (2025-01-31T09:00:00Z)",
  filterNotScalar: () => "muss Text, eine Zahl oder wahr/falsch sein",
  filterUnknownKey: () => "ist kein Schlüssel eines Knotens: eine Gruppe ist all, any oder not; eine Bedingung ist field, op und value",
  filterFieldRequired: () => "ist nötig: ein Knoten ist eine Gruppe (all, any, not) oder eine Bedingung (field, op, value)",
  filterUnknownField: ({ fields }) => `muss eines von ${fields} sein`,
  filterUnknownOperator: ({ field, operators }) => `muss für ${field} eines von ${operators} sein`,
  filterValueRequired: () => "ist nötig",
  filterTagId: () => "muss die ID eines Tags sein (eine UUID)",
  filterBetween: () => "muss [von, bis] sein: zwei Zeitpunkte",
  filterMetadataPathKeys: ({ max }) => `ein Metadaten-Pfad hat höchstens ${max} Schlüssel`,
  filterMetadataPathKey: ({ key }) =>
    `der Schlüssel ${key} des Metadaten-Pfads muss mit einem Buchstaben oder _ beginnen und darf nur Buchstaben, Ziffern, _ und - enthalten`,
  filterNoValue: ({ op }) => `${op} nimmt keinen Wert`,
  filterNotNumberOrDate: () => "muss eine Zahl oder ein Datum sein",
  filterDays: ({ max }) => `muss eine ganze Zahl von Tagen zwischen 1 und ${max} sein`,
  // Words of another program stay as it wrote them.
  foreign: ({ text }) => text
}

export const reasonTexts = { en: englishReasonWords, de } as const
