// Entitlements: the named capabilities a plan promises (beta, configs, ...), defined by staff and
// attached to plans. A sale copies its plan's names onto the licence (decision 054); what a plan
// includes later changes only the keys sold after.
import { asc, eq, sql } from "drizzle-orm";
import type { LicencePlan } from "~/lib/plans";
import { ok, type Result } from "~/lib/result";
import { audit } from "../platform/audit.server";
import { builtOnce } from "../platform/db/reads.server";
import type { Db } from "../platform/db/client.server";
import { entitlements, planEntitlements } from "../platform/db/schema.server";

/** The names `plan` includes now, as a JSON array: the value a new licence row's `entitlements` takes. */
export const entitlementsOfPlan = (plan: LicencePlan) =>
  sql<
    string[]
  >`(select json_group_array(entitlement) from (select entitlement from plan_entitlements where plan = ${plan} order by entitlement))`;

export interface EntitlementRow {
  name: string;
  label: string;
  plans: LicencePlan[];
}

/** Every entitlement with the plans that include it, by name. */
/** Each defined entitlement's words, as a statement not yet run (a page batches it with its own reads). */
/** Every entitlement's name and label, built once per database (each licence list reads them). */
export const entitlementLabels = builtOnce((db) =>
  db.select({ name: entitlements.name, label: entitlements.label }).from(entitlements).prepare(),
);

export async function listEntitlements(db: Db): Promise<EntitlementRow[]> {
  const [defined, attached] = await db.batch([
    db.select({ name: entitlements.name, label: entitlements.label }).from(entitlements).orderBy(asc(entitlements.name)),
    db.select().from(planEntitlements),
  ]);
  return defined.map((e) => ({ ...e, plans: attached.filter((a) => a.entitlement === e.name).map((a) => a.plan) }));
}

/** Defines an entitlement (or renames its label) and sets the plans that include it. */
export async function saveEntitlement(
  db: Db,
  actorId: string,
  input: { name: string; label: string; plans: LicencePlan[] },
  now = Date.now(),
): Promise<Result<{ name: string }>> {
  const { name, label, plans } = input;
  await db.batch([
    db.insert(entitlements).values({ name, label, createdAt: now }).onConflictDoUpdate({ target: entitlements.name, set: { label } }),
    db.delete(planEntitlements).where(eq(planEntitlements.entitlement, name)),
    ...plans.map((plan) => db.insert(planEntitlements).values({ plan, entitlement: name })),
  ]);
  await audit(db, actorId, "entitlement.save", name, { label, plans });
  return ok({ name });
}
