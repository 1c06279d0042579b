import * as SqlClient from "@effect/sql/SqlClient"
import { MembershipRepository } from "@roster/application"
import { Membership, Organization, User } from "@roster/domain"
import { Effect, Layer } from "effect"
import { membershipColumns, organizationColumns, selectList, userColumns } from "./columns.js"
import { decodeCount, decodeFirst, decodeRow, type Row } from "./rows.js"

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

export const PostgresMembershipRepositoryLive = Layer.effect(
  MembershipRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = selectList(sql, membershipColumns)
    const membershipList = selectList(sql, membershipColumns, { from: "m", prefix: MEMBERSHIP })

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
          SELECT ${membershipList}, ${selectList(sql, organizationColumns, { from: "o", prefix: ORGANIZATION })}
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

      countWithRole: (organizationId, role) =>
        sql`
          SELECT count(*)::integer AS count FROM memberships
          WHERE organization_id = ${organizationId} AND role = ${role}`.pipe(Effect.flatMap(decodeCount), Effect.orDie)
    })
  })
)
