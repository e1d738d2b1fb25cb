// Shared-key detection through the Worker: a key checked from too many countries (or addresses)
// within the window is flagged on the Licences-at-risk list, at the threshold and not below, with
// what was seen; staff suspend, ban or dismiss it; above a second threshold, when staff set one, it
// is suspended on its own. Runs in a database of its own: it changes the shop's fraud settings.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { ANSWER_REASON, FRAUD_DEFAULTS } from "~/lib/fraud";
import { type KeyWatchNamespace, SightingReports, sightingsOf, WATCH_GROUPS, watchNameOf } from "~/server/licences/sharing.server";
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

/** What the watch of the key's group keeps of the key, as staff's pages read it. */
async function seenOf(key: string) {
  const licence = await db.select({ id: licences.id }).from(licences).where(eq(licences.key, key)).get();
  return sightingsOf(env.KEY_WATCH as unknown as KeyWatchNamespace, licence!.id);
}

/** Checks `key` from one address in each of `countries`, and waits until its watch heard of them all. */
async function checkedFrom(key: string, pc: string, countries: string[], seen: number) {
  for (const [i, country] of countries.entries()) await check(key, pc, `198.51.${100 + seen + i}.${10 + i}`, country);
  await vi.waitFor(async () => expect(await seenOf(key)).toHaveLength(seen + countries.length), {
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

  it("counts each key of a group on its own: another key's places never add to its count", async () => {
    // The shop's default thresholds, whatever an earlier test saved.
    expect((await saveFraudSettings(await admin())).status).toBe(200);
    const { key } = await boughtKey();
    const licence = (await db.select({ id: licences.id }).from(licences).where(eq(licences.key, key)).get())!;
    const neighbour = licence.id + WATCH_GROUPS;
    const watch = env.KEY_WATCH.get(env.KEY_WATCH.idFromName(watchNameOf(licence.id)));
    const at = Date.now();
    const places = (countries: string[], from: number) => countries.map((country, i) => ({ address: `198.18.${from + i}.1`, country, at }));
    const below = FRAUD_DEFAULTS.flagCountries - 1;
    // One message carries both keys, as an isolate's does: the neighbour's other countries stay its own.
    await watch.sighted([
      { licenceId: licence.id, reports: places(COUNTRIES.slice(0, below), 0) },
      { licenceId: neighbour, reports: places(COUNTRIES.slice(below), 50) },
    ]);
    expect(await seenOf(key)).toHaveLength(below);
    expect(await flagOf(key)).toBeUndefined();
    await watch.sighted([{ licenceId: licence.id, reports: places(COUNTRIES.slice(below, below + 1), 100) }]);
    expect(await flagOf(key)).toMatchObject({ state: "open", countries: FRAUD_DEFAULTS.flagCountries });
  });

  it("refuses thresholds for automatic suspension that are not above the flag's", async () => {
    const response = await saveFraudSettings(await admin(), { suspendCountries: "5" });
    expect(response.status).toBe(400);
  });
});

describe("reporting checks to the keys' watches", () => {
  /** A stand-in namespace that notes each message: the watch it went to and each licence's addresses. */
  function recorder() {
    const sent: { watch: string; licences: Record<number, string[]> }[] = [];
    const watch = {
      idFromName: (name: string) => name as unknown as DurableObjectId,
      get: (id: DurableObjectId) => ({
        sighted: async (batch: { licenceId: number; reports: { address: string }[] }[]) => {
          sent.push({
            watch: String(id),
            licences: Object.fromEntries(batch.map((l) => [l.licenceId, l.reports.map((r) => r.address)])),
          });
        },
        sightings: async () => [],
      }),
    };
    return { sent, watch };
  }

  it("sends a group's first place at once, then new places together at most once per interval, each place once an hour", () => {
    const { sent, watch } = recorder();
    // Two licences of one group.
    const reports = new SightingReports();
    const first = 7 * WATCH_GROUPS + 3;
    const second = first + WATCH_GROUPS;
    const report = (licenceId: number, address: string, at: number) =>
      reports.report(watch, () => {}, { licenceId, address, country: "DE", at }, 60_000);
    const t = 1_000_000;
    report(first, "203.0.113.1", t);
    report(first, "203.0.113.1", t + 1000);
    report(first, "203.0.113.2", t + 2000);
    report(second, "203.0.113.3", t + 3000);
    expect(sent).toEqual([{ watch: watchNameOf(first), licences: { [first]: ["203.0.113.1"] } }]);
    // A check of any key of the group carries what waits once the minute is over, every key in one message.
    report(second, "203.0.113.3", t + 61_000);
    expect(sent).toHaveLength(2);
    expect(sent.at(-1)).toEqual({ watch: watchNameOf(first), licences: { [first]: ["203.0.113.2"], [second]: ["203.0.113.3"] } });
    report(first, "203.0.113.2", t + 200_000);
    expect(sent).toHaveLength(2);
    // An hour later the same place counts again (its window moves on).
    report(first, "203.0.113.2", t + 3_700_000);
    expect(sent.at(-1)).toEqual({ watch: watchNameOf(first), licences: { [first]: ["203.0.113.2"] } });
  });

  it("keeps each group's interval apart: a busy group does not hold back another's first message", () => {
    const { sent, watch } = recorder();
    const reports = new SightingReports();
    const base = 5 * WATCH_GROUPS;
    const t = 2_000_000;
    for (let i = 0; i < WATCH_GROUPS; i++)
      reports.report(watch, () => {}, { licenceId: base + i, address: "203.0.113.9", country: null, at: t + i }, 60_000);
    expect(sent.map((m) => m.watch).toSorted()).toEqual(Array.from({ length: WATCH_GROUPS }, (_, i) => watchNameOf(base + i)).toSorted());
  });
});
