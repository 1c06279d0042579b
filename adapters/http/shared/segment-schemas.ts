import {
  filterOperators,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  MAX_SEGMENT_DESCRIPTION_LENGTH,
  MAX_SEGMENT_NAME_LENGTH,
  type Segment as DomainSegment,
  SegmentDescription,
  SegmentFilter,
  SegmentName
} from "@roster/domain"
import { Schema } from "effect"
import { strictInput, Timestamp, Uuid } from "./wire-fields.js"

/** Segments as every form shows and takes them. */

export const Segment = Schema.Struct({
  id: Uuid,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  filter: SegmentFilter,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Segment" })

const NameInput = SegmentName.annotations({
  jsonSchema: { type: "string", minLength: 1, maxLength: MAX_SEGMENT_NAME_LENGTH, description: "for people; trimmed" }
})
const DescriptionInput = Schema.NullOr(SegmentDescription.annotations({
  jsonSchema: { type: "string", maxLength: MAX_SEGMENT_DESCRIPTION_LENGTH }
}))

export const CreateSegmentRequest = Schema.Struct({
  name: NameInput,
  description: Schema.optionalWith(DescriptionInput, { exact: true }),
  filter: SegmentFilter
}).annotations({ identifier: "CreateSegmentRequest", ...strictInput })

export const UpdateSegmentRequest = Schema.Struct({
  name: Schema.optionalWith(NameInput, { exact: true }),
  description: Schema.optionalWith(DescriptionInput, { exact: true }),
  filter: Schema.optionalWith(SegmentFilter, { exact: true })
}).annotations({ identifier: "UpdateSegmentRequest", description: "fields left out stay as they are", ...strictInput })

export const PreviewFilterRequest = Schema.Struct({
  filter: SegmentFilter
}).annotations({ identifier: "PreviewFilterRequest", ...strictInput })

export const toSegment = (segment: DomainSegment): typeof Segment.Type => ({
  id: segment.id,
  name: segment.name,
  description: segment.description,
  filter: segment.filter,
  created_at: segment.createdAt.toISOString(),
  updated_at: segment.updatedAt.toISOString()
})

/** The filter's rules, told once for both forms. */
export const segmentRules = `A segment is a saved filter with a name. Who belongs to it is worked out each time it is
read (a preview, a campaign's count and send), never stored. A filter node is a group \`{"all": [node, ...]}\`,
\`{"any": [node, ...]}\`, \`{"not": node}\` or a condition \`{"field": F, "op": OP, "value": V}\`; \`all\` of none matches
everyone, \`any\` of none no one. Fields and their operators: ${
  Object.entries(filterOperators).map(([field, ops]) => `\`${field}\`: ${ops.map((op) => `\`${op}\``).join(", ")}`).join("; ")
}. \`status\` takes a status (\`in\`, \`not_in\`: a list); \`tags\` a list of tag ids of the organization; \`email\` a text
compared regardless of letter case (\`domain\`: the whole part after the \`@\`); \`created_at\` an instant (\`between\`:
\`[from, to]\`, from included, to not); \`metadata.<path>\` (1 to 5 keys, each a letter or \`_\` then letters, digits, \`_\`,
\`-\`): \`eq\`/\`neq\` a string, number or boolean (\`neq\` also matches where the path is missing), \`exists\`/\`not_exists\` no
value, \`contains\` a text within a text or an element of an array, \`gt\`/\`gte\`/\`lt\`/\`lte\` a number (against numbers) or
a date (against values that are dates: \`YYYY-MM-DD\` as midnight UTC, or a date and time with seconds and a zone);
\`engagement.*_days\` a whole number of days, 1 to 3650: opened (or clicked), clicked, or received (handed to the email
provider) any email within that many days. At most ${MAX_FILTER_DEPTH} levels and ${MAX_FILTER_NODES} nodes. A bad node
is a 400 naming its path, such as \`filter.all[1].value\`.`
