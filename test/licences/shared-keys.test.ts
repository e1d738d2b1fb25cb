// Shared-key detection through the Worker: a key checked from too many countries (or addresses)
// within the window is flagged on the Licences-at-risk list, at the threshold and not below, with
// what was seen; staff suspend, ban or dismiss it; above a second threshold, when staff set one, it
// is suspended on its own. Runs in a database of its own: it changes the shop's fraud settings.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { ANSWER_REASON, FRAUD_DEFAULTS } from "~/lib/fraud";
import { reportSighting } from "~/server/licences/sharing.server";
import { auditLog, licenceRiskFlags, licences } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, hwid, ORIGIN, saveFraudSettings, signIn, unique } from "../helpers";

const COUNTRIES = ["DE", "FR", "NL", "PL", "SE", "ES", "IT", "PT", "BE", "AT", "CZ", "DK"];

async function check(key: string, pc: string, ip: string, country: string) {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/licences/validate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip, "CF-IPCountry": country },
      body: JSON.stringify({ key, hwid: pc, nonce: unique("nonce-0123456789") }),
    }),
  );
  return (await response.json()) as { code: string; reason?: string };
}

/** The key's watch, as the Worker reaches it. */
const watchOf = (key: string) => env.KEY_WATCH.get(env.KEY_WATCH.idFromName(key));

/** Checks `key` from one address in each of `countries`, and waits until its watch heard of them all. */
async function checkedFrom(key: string, pc: string, countries: string[], seen: number) {
  for (const [i, country] of countries.entries()) await check(key, pc, `198.51.${100 + seen + i}.${10 + i}`, country);
  await vi.waitFor(async () => expect(await watchOf(key).sightings()).toHaveLength(seen + countries.length), {
    timeout: 10_000,
    interval: 25,
  });
}

const flagOf = async (key: string) => {
  const licence = await db.select({ id: licences.id }).from(licences).where(eq(licences.key, key)).get();
  return db.select().from(licenceRiskFlags).where(eq(licenceRiskFlags.licenceId, licence!.id)).get();
};

let staff: string | undefined;
const admin = async () => (staff ??= await signIn(await createAccount({ admin: true }), "192.0.2.250"));

describe("a key shared across countries", () => {
  it("is flagged at the threshold and not below, with the countries seen, and staff can suspend and dismiss it", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    const below = FRAUD_DEFAULTS.flagCountries - 1;
    await checkedFrom(key, pc, COUNTRIES.slice(0, below), 0);
    expect(await flagOf(key)).toBeUndefined();

    await checkedFrom(key, pc, COUNTRIES.slice(below, below + 1), below);
    await vi.waitFor(async () => expect(await flagOf(key)).toBeDefined(), { timeout: 10_000, interval: 25 });
    const flag = (await flagOf(key))!;
    expect(flag).toMatchObject({ state: "open", countries: FRAUD_DEFAULTS.flagCountries, autoSuspended: false });
    // Flagged only: the key still works until staff decide.
    expect((await check(key, pc, "198.51.100.10", "DE")).code).toBe("VALID");

    const cookie = await admin();
    const page = await (await call("/dashboard/licences-at-risk", { cookie })).text();
    expect(page).toContain(`Countries: <!-- -->${COUNTRIES.slice(0, FRAUD_DEFAULTS.flagCountries).toSorted().join(", ")}`);

    expect((await call("/dashboard/licences-at-risk", { form: { intent: "suspend", flagId: String(flag.id) }, cookie })).status).toBe(200);
    expect(await check(key, pc, "198.51.100.10", "DE")).toMatchObject({ code: "SUSPENDED", reason: ANSWER_REASON.sharing });
    // A second click (another admin, the same moment) is refused: the decision was claimed.
    expect((await call("/dashboard/licences-at-risk", { form: { intent: "suspend", flagId: String(flag.id) }, cookie })).status).toBe(409);
    expect((await call("/dashboard/licences-at-risk", { form: { intent: "dismiss", flagId: String(flag.id) }, cookie })).status).toBe(200);
    expect((await check(key, pc, "198.51.100.10", "DE")).code).toBe("VALID");
    expect(await db.select().from(auditLog).where(eq(auditLog.action, "licence.risk-suspend"))).toHaveLength(1);
  });

  it("can be banned from the list", async () => {
    const { key } = await boughtKey();
    const pc = hwid();
    await checkedFrom(key, pc, COUNTRIES.slice(0, FRAUD_DEFAULTS.flagCountries), 0);
    await vi.waitFor(async () => expect(await flagOf(key)).toBeDefined(), { timeout: 10_000, interval: 25 });
    const cookie = await admin();
    expect(
      (await call("/dashboard/licences-at-risk", { form: { intent: "ban", flagId: String((await flagOf(key))!.id) }, cookie })).status,
    ).toBe(200);
    expect((await check(key, pc, "198.51.100.10", "DE")).code).toBe("BANNED");
  });

  it("is suspended on its own above the second threshold once staff turn it on", async () => {
    const cookie = await admin();
    const saved = await saveFraudSettings(cookie, { flagCountries: "3", suspendCountries: "4" });
    expect(saved.status).toBe(200);
    const { key } = await boughtKey();
    const pc = hwid();
    await checkedFrom(key, pc, COUNTRIES.slice(0, 3), 0);
    await vi.waitFor(async () => expect(await flagOf(key)).toBeDefined(), { timeout: 10_000, interval: 25 });
    expect((await check(key, pc, "198.51.100.10", "DE")).code).toBe("VALID");
    await checkedFrom(key, pc, COUNTRIES.slice(3, 4), 3);
    await vi.waitFor(async () => expect((await flagOf(key))?.autoSuspended).toBe(true), { timeout: 10_000, interval: 25 });
    expect(await check(key, pc, "198.51.100.10", "DE")).toMatchObject({ code: "SUSPENDED", reason: ANSWER_REASON.sharing });
  });

  it("refuses thresholds for automatic suspension that are not above the flag's", async () => {
    const response = await saveFraudSettings(await admin(), { suspendCountries: "5" });
    expect(response.status).toBe(400);
  });
});

describe("reporting checks to a key's watch", () => {
  it("sends a key's first place at once, then new places together at most once per interval, each place once an hour", () => {
    const sent: { key: string; reports: string[] }[] = [];
    const watch = {
      idFromName: (name: string) => name as unknown as DurableObjectId,
      get: (id: DurableObjectId) => ({
        sighted: async (_licenceId: number, reports: { address: string }[]) => {
          sent.push({ key: String(id), reports: reports.map((r) => r.address) });
        },
        sightings: async () => [],
      }),
    };
    const key = unique("KEY");
    const report = (address: string, at: number) =>
      reportSighting(watch, () => {}, { licenceId: 1, key, address, country: "DE", at }, 60_000);
    const t = 1_000_000;
    report("203.0.113.1", t);
    report("203.0.113.1", t + 1000);
    report("203.0.113.2", t + 2000);
    report("203.0.113.3", t + 3000);
    expect(sent).toEqual([{ key, reports: ["203.0.113.1"] }]);
    // A check from a place already reported carries what waits once the minute is over.
    report("203.0.113.1", t + 61_000);
    expect(sent.at(-1)).toEqual({ key, reports: ["203.0.113.2", "203.0.113.3"] });
    report("203.0.113.2", t + 200_000);
    expect(sent).toHaveLength(2);
    // An hour later the same place counts again (its window moves on).
    report("203.0.113.2", t + 3_700_000);
    expect(sent.at(-1)).toEqual({ key, reports: ["203.0.113.2"] });
  });
});
