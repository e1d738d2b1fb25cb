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

/** How long the key watches of one isolate go on with the settings they read. */
const WATCH_SETTINGS_FOR_MS = 60_000;

let forWatches: { value: FraudSettings; until: number } | undefined;
/** Counts saves in this isolate, so a read that a save overtook is not kept. */
let saves = 0;

/**
 * The settings as the key watches judge by, read at most once a minute per isolate and shared by
 * all its watches: each watch kept its own copy for a minute before, so a change reached them within
 * the minute all the same, but every watch woken anew (a key's first check in a while) read D1 again,
 * a query as costly as the licence check's own read. A save in this isolate takes effect here at once.
 * The settings are kept, not the read's promise: a promise of one request's I/O must not be awaited
 * by another.
 */
export async function fraudSettingsForWatches(db: Db, now: number): Promise<FraudSettings> {
  if (forWatches && forWatches.until > now) return forWatches.value;
  const before = saves;
  const value = await fraudSettingsOf(db);
  if (saves === before) forWatches = { value, until: now + WATCH_SETTINGS_FOR_MS };
  return value;
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
  saves++;
  forWatches = undefined;
  await audit(db, viewer.id, "fraud.settings", "fraud-settings", { ...input }, ip);
  return ok();
}
