// The shop's fraud settings (decision 093), one row: the shared-key detection's window and
// thresholds, automatic suspension above a second threshold (off unless set) and whether risky
// orders are held for review (off by default). Absent, the defaults hold.
import { eq } from "drizzle-orm";
import { FRAUD_DEFAULTS, type FraudSettings } from "~/lib/fraud";
import { ok, type Result } from "~/lib/result";
import type { FraudSettingsInput } from "~/lib/schemas/fraud";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { fraudSettings } from "../platform/db/schema.server";
import type { BlockActor } from "./blocks.server";

export async function fraudSettingsOf(db: Db): Promise<FraudSettings> {
  const row = await db.select().from(fraudSettings).where(eq(fraudSettings.id, 1)).get();
  if (!row) return FRAUD_DEFAULTS;
  const { windowHours, flagAddresses, flagCountries, suspendAddresses, suspendCountries, holdRiskyOrders } = row;
  return { windowHours, flagAddresses, flagCountries, suspendAddresses, suspendCountries, holdRiskyOrders };
}

/** Staff: the settings, audited with what they became. */
export async function saveFraudSettings(
  db: Db,
  { viewer, ip }: BlockActor,
  input: Omit<FraudSettingsInput, "intent">,
  now = Date.now(),
): Promise<Result> {
  const values = { ...input, updatedAt: now, updatedBy: viewer.id };
  await db
    .insert(fraudSettings)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: fraudSettings.id, set: values });
  await audit(db, viewer.id, "fraud.settings", "fraud-settings", { ...input }, ip);
  return ok();
}
