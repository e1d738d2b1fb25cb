// Staff grant or remove one entitlement on a single licence (a goodwill beta, a feature taken back),
// audited; the plan and every other key stay as they are. Each is one conditional update of the
// licence's list, so two staff changing it at once cannot lose each other's change.
import { and, eq, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import type { Db } from "../platform/db/client.server";
import { entitlements, licences } from "../platform/db/schema.server";
import { auditLicence } from "./licence-audit.server";

const holds = (name: string) => sql`exists (select 1 from json_each(${licences.entitlements}) where value = ${name})`;

export async function changeLicenceEntitlement(
  db: Db,
  admin: Viewer,
  row: { id: number; key: string },
  input: { intent: "grant-entitlement" | "remove-entitlement"; entitlement: string },
  ip: string | null,
): Promise<Result<{ intent: "grant-entitlement" | "remove-entitlement" }>> {
  const name = input.entitlement;
  if (input.intent === "grant-entitlement") {
    if (!(await db.select({ name: entitlements.name }).from(entitlements).where(eq(entitlements.name, name)).get())) {
      return fail("invalid", "No such entitlement", { field: "entitlement" });
    }
    const [granted] = await db
      .update(licences)
      .set({
        entitlements: sql`(select json_group_array(value) from (select value from json_each(${licences.entitlements}) union select ${name} order by 1))`,
      })
      .where(and(eq(licences.id, row.id), sql`not ${holds(name)}`))
      .returning({ id: licences.id });
    if (!granted) return fail("conflict", "This key already has it");
    await auditLicence(db, admin.id, "licence.grant-entitlement", row, { entitlement: name }, ip);
    return ok({ intent: input.intent });
  }
  const [removed] = await db
    .update(licences)
    .set({
      entitlements: sql`(select json_group_array(value) from (select value from json_each(${licences.entitlements}) where value <> ${name} order by 1))`,
    })
    .where(and(eq(licences.id, row.id), holds(name)))
    .returning({ id: licences.id });
  if (!removed) return fail("conflict", "This key does not have it");
  await auditLicence(db, admin.id, "licence.remove-entitlement", row, { entitlement: name }, ip);
  return ok({ intent: input.intent });
}
