// The watch of a group of licences (decisions 093 and 105): one Durable Object per group (a
// licence's number modulo WATCH_GROUPS), told by the Worker's isolates where the group's keys are
// checked from (each key and address at most once an hour per isolate, gathered into at most one
// message a minute per group). It keeps each key's addresses for 30 days in its own SQLite storage,
// counts a key's distinct addresses and countries of the shop's window when an address new to the
// window arrives, and asks the licences domain to judge the key only when a threshold is newly
// reached: D1 is written once when a key is flagged, once more if it is suspended. Staff see a
// key's sightings as evidence (disputes, licences at risk).
import { DurableObject } from "cloudflare:workers";
import type { FraudSettings } from "~/lib/fraud";
import type { LicenceReports, Sighting } from "~/server/licences/sharing.server";
import { onFirstUse } from "~/server/platform/on-first-use.server";

// The rules and the database load with a watch's first report: the class is part of the Worker's
// entry, which every cold start evaluates (decision 107).
const judging = onFirstUse(() =>
  Promise.all([
    import("~/server/blocks/fraud-settings.server"),
    import("~/server/licences/sharing.server"),
    import("~/server/platform/db/client.server"),
  ]),
);

const KEEP_MS = 30 * 24 * 3600_000;
/** Enough addresses per key to judge and show; the oldest go first. */
const MAX_ADDRESSES = 500;

type Level = "flagged" | "suspended";

export class KeyWatch extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `create table if not exists key_sightings (licence_id integer not null, address text not null, country text,
         first_seen integer not null, last_seen integer not null, reports integer not null, primary key (licence_id, address));
       create index if not exists key_sightings_last_seen on key_sightings (last_seen);
       create table if not exists judged (licence_id integer primary key, at integer not null, level text not null);`,
    );
  }

  async sighted(batch: LicenceReports[]): Promise<void> {
    const heard = batch.filter((licence) => licence.reports.length > 0);
    if (heard.length === 0) return;
    const at = Math.max(...heard.flatMap((licence) => licence.reports.map((r) => r.at)));
    const [{ fraudSettingsForWatches }, , { database }] = await judging();
    const settings = await fraudSettingsForWatches(database(this.env.DB), at);
    // Only an address new to the window can change a key's counts: those keys are judged.
    const fresh: LicenceReports[] = [];
    for (const licence of heard) if (this.#note(licence, settings.windowHours * 3600_000)) fresh.push(licence);
    this.ctx.storage.sql.exec("delete from key_sightings where last_seen < ?", at - KEEP_MS);
    for (const licence of fresh) await this.#judge(licence, settings, at);
  }

  async sightings(licenceId: number): Promise<Sighting[]> {
    return this.#rows(licenceId);
  }

  /** Keeps one licence's reports; true when one of them is an address new to the window. */
  #note({ licenceId, reports }: LicenceReports, windowMs: number): boolean {
    const sql = this.ctx.storage.sql;
    let fresh = false;
    for (const { address, country, at: seen } of reports) {
      const before = sql
        .exec<{ last_seen: number }>("select last_seen from key_sightings where licence_id = ? and address = ?", licenceId, address)
        .toArray()[0];
      if (!before || before.last_seen < seen - windowMs) fresh = true;
      sql.exec(
        `insert into key_sightings (licence_id, address, country, first_seen, last_seen, reports) values (?, ?, ?, ?, ?, 1)
         on conflict (licence_id, address) do update set last_seen = max(last_seen, excluded.last_seen), reports = reports + 1,
           country = coalesce(excluded.country, country)`,
        licenceId,
        address,
        country,
        seen,
        seen,
      );
    }
    if (fresh)
      sql.exec(
        `delete from key_sightings where licence_id = ?1 and address not in
           (select address from key_sightings where licence_id = ?1 order by last_seen desc limit ?2)`,
        licenceId,
        MAX_ADDRESSES,
      );
    return fresh;
  }

  /** Asks the licences domain to judge a key whose window reached a threshold, once per level and window. */
  async #judge({ licenceId }: { licenceId: number }, settings: FraudSettings, at: number): Promise<void> {
    const windowMs = settings.windowHours * 3600_000;
    const window = this.#rows(licenceId).filter((s) => s.lastSeen >= at - windowMs);
    const addresses = window.length;
    const countries = new Set(window.flatMap((s) => (s.country ? [s.country] : []))).size;
    const reached = (addressLimit: number | null, countryLimit: number | null) =>
      (addressLimit !== null && addresses >= addressLimit) || (countryLimit !== null && countries >= countryLimit);
    if (!reached(settings.flagAddresses, settings.flagCountries)) return;
    // Judged once when the flag's threshold is reached in a window, and once more at the second.
    const over = reached(settings.suspendAddresses, settings.suspendCountries);
    const sql = this.ctx.storage.sql;
    const judged = sql.exec<{ at: number; level: Level }>("select at, level from judged where licence_id = ?", licenceId).toArray()[0];
    if (judged && judged.at >= at - windowMs && (judged.level === "suspended" || !over)) return;
    const [, { judgeSharing }, { database }] = await judging();
    const level = await judgeSharing(database(this.env.DB), licenceId, window, settings, at);
    if (level)
      sql.exec(
        "insert into judged (licence_id, at, level) values (?, ?, ?) on conflict (licence_id) do update set at = excluded.at, level = excluded.level",
        licenceId,
        at,
        level,
      );
  }

  #rows(licenceId: number): Sighting[] {
    return this.ctx.storage.sql
      .exec<{ address: string; country: string | null; first_seen: number; last_seen: number; reports: number }>(
        "select address, country, first_seen, last_seen, reports from key_sightings where licence_id = ? order by last_seen desc",
        licenceId,
      )
      .toArray()
      .map((row) => ({
        address: row.address,
        country: row.country,
        firstSeen: row.first_seen,
        lastSeen: row.last_seen,
        reports: row.reports,
      }));
  }
}
