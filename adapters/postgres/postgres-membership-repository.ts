import * as SqlClient from "@effect/sql/SqlClient"
import { MembershipRepository } from "@roster/application"
import { Membership, Organization, OrganizationId, User, UserId } from "@roster/domain"
import { Effect, Layer, Schema } from "effect"
import { membershipColumns, organizationSelectList, selectList, userColumns } from "./columns.js"
import { decodeCount, decodeFirst, decodeRow, decodeRows, type Row } from "./rows.js"

const MEMBERSHIP = "membership."
const ORGANIZATION = "organization."
const USER = "user."

const decodeMembership = decodeFirst(Membership)
const decodeMembershipOf = decodeRow(Membership, MEMBERSHIP)
const decodeOrganization = decodeRow(Organization, ORGANIZATION)
const decodeUser = decodeRow(User, USER)

const decodeWithOrganization = (row: Row) =>
  Effect.all({ membership: decodeMembershipOf(row), organization: decodeOrganization(row) })

const decodeWithUser = (row: Row) => Effect.all({ membership: decodeMembershipOf(row), user: decodeUser(row) })

const decodeUserIds = decodeRows(Schema.Struct({ userId: UserId }))

const decodeMemberCounts = decodeRows(Schema.Struct({ organizationId: OrganizationId, count: Schema.Number }))

/** Rows ordered by user, gathered per user in that order. */
const byUser = <A extends { readonly membership: Membership }>(rows: ReadonlyArray<A>): ReadonlyMap<UserId, ReadonlyArray<A>> => {
  const grouped = new Map<UserId, Array<A>>()
  for (const row of rows) {
    const list = grouped.get(row.membership.userId)
    if (list === undefined) grouped.set(row.membership.userId, [row])
    else list.push(row)
  }
  return grouped
}

export const PostgresMembershipRepositoryLive = Layer.effect(
  MembershipRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, membershipColumns)
    const membershipList = selectList(sql, membershipColumns, { from: "m", prefix: MEMBERSHIP })
    const organizationList = organizationSelectList(sql, { from: "o", prefix: ORGANIZATION })

    return MembershipRepository.of({
      // A membership keeps the moment it began; only its role changes.
      upsert: (membership) =>
        sql`
          INSERT INTO memberships (organization_id, user_id, role, created_at)
          VALUES (${membership.organizationId}, ${membership.userId}, ${membership.role}, ${membership.createdAt})
          ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role`.pipe(Effect.asVoid, Effect.orDie),

      find: (organizationId, userId) =>
        sql`SELECT ${columns} FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`.pipe(
          Effect.flatMap(decodeMembership),
          Effect.orDie
        ),

      listForUser: (userId) =>
        sql`
          SELECT ${membershipList}, ${organizationList}
          FROM memberships m JOIN organizations o ON o.id = m.organization_id
          WHERE m.user_id = ${userId}
          ORDER BY m.created_at, m.organization_id`.pipe(
          Effect.flatMap((rows) => Effect.forEach(rows, decodeWithOrganization)),
          Effect.orDie
        ),

      listForOrganization: (organizationId) =>
        sql`
          SELECT ${membershipList}, ${selectList(sql, userColumns, { from: "u", prefix: USER })}
          FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.organization_id = ${organizationId}
          ORDER BY m.created_at, m.user_id`.pipe(
          Effect.flatMap((rows) => Effect.forEach(rows, decodeWithUser)),
          Effect.orDie
        ),

      remove: (organizationId, userId) =>
        sql`DELETE FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId} RETURNING user_id`
          .pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      // Row locks taken in one order, so that two holders never deadlock. A holder that waited reads
      // the rows again as they were committed: a demoted owner's row no longer matches, a removed one is gone.
      holdOwners: (organizationId) =>
        sql`
          SELECT user_id FROM memberships
          WHERE organization_id = ${organizationId} AND role = 'owner'
          ORDER BY user_id
          FOR UPDATE`.pipe(
          Effect.flatMap(decodeUserIds),
          Effect.map((rows) => rows.map((row) => row.userId)),
          Effect.orDie
        ),

      countWithRole: (organizationId, role) =>
        sql`
          SELECT count(*)::integer AS count FROM memberships
          WHERE organization_id = ${organizationId} AND role = ${role}`.pipe(Effect.flatMap(decodeCount), Effect.orDie),

      countMembers: (organizationIds) =>
        organizationIds.length === 0 ? Effect.succeed(new Map()) : sql`
          SELECT organization_id, count(*)::integer AS count FROM memberships
          WHERE organization_id = ANY(${organizationIds}::uuid[])
          GROUP BY organization_id`.pipe(
          Effect.flatMap(decodeMemberCounts),
          Effect.map((rows) => new Map(rows.map((row) => [row.organizationId, row.count]))),
          Effect.orDie
        ),

      listForUsers: (userIds) =>
        userIds.length === 0 ? Effect.succeed(new Map()) : sql`
          SELECT ${membershipList}, ${organizationList}
          FROM memberships m JOIN organizations o ON o.id = m.organization_id
          WHERE m.user_id = ANY(${userIds}::uuid[])
          ORDER BY m.user_id, m.created_at, m.organization_id`.pipe(
          Effect.flatMap((rows) => Effect.forEach(rows, decodeWithOrganization)),
          Effect.map(byUser),
          Effect.orDie
        )
    })
  })
)
