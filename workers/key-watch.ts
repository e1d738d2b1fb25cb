// A licence key's watch (decision 093): one Durable Object per key, told by the Worker's isolates
// where the key is checked from (each key and address at most once an hour per isolate, gathered
// into at most one message a minute). It keeps the addresses it heard of for 30 days in its own
// SQLite storage, counts the distinct addresses and countries of the shop's window when an address
// new to the window arrives, and asks the licences domain to judge the key only when a threshold is
// newly reached: D1 is written once when a key is flagged, once more if it is suspended. Staff see
// its sightings as evidence (disputes, licences at risk).
import { DurableObject } from "cloudflare:workers";
import type { Report, Sighting } from "~/server/licences/sharing.server";
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
/** Enough addresses to judge and show; the oldest go first. */
const MAX_ADDRESSES = 500;

export class KeyWatch extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "create table if not exists sightings (address text primary key, country text, first_seen integer not null, last_seen integer not null, reports integer not null)",
    );
  }

  async sighted(licenceId: number, reports: Report[]): Promise<void> {
    if (reports.length === 0) return;
    const sql = this.ctx.storage.sql;
    const at = Math.max(...reports.map((r) => r.at));
    const [{ fraudSettingsForWatches }, { judgeSharing }, { database }] = await judging();
    const settings = await fraudSettingsForWatches(database(this.env.DB), at);
    const windowMs = settings.windowHours * 3600_000;
    let fresh = false;
    for (const { address, country, at: seen } of reports) {
      const before = sql.exec<{ last_seen: number }>("select last_seen from sightings where address = ?", address).toArray()[0];
      if (!before || before.last_seen < seen - windowMs) fresh = true;
      sql.exec(
        `insert into sightings (address, country, first_seen, last_seen, reports) values (?, ?, ?, ?, 1)
         on conflict (address) do update set last_seen = max(last_seen, excluded.last_seen), reports = reports + 1,
           country = coalesce(excluded.country, country)`,
        address,
        country,
        seen,
        seen,
      );
    }
    sql.exec("delete from sightings where last_seen < ?", at - KEEP_MS);
    sql.exec("delete from sightings where address not in (select address from sightings order by last_seen desc limit ?)", MAX_ADDRESSES);
    // Only an address new to the window can change the counts.
    if (!fresh) return;
    const window = this.#rows().filter((s) => s.lastSeen >= at - windowMs);
    const addresses = window.length;
    const countries = new Set(window.flatMap((s) => (s.country ? [s.country] : []))).size;
    const reached = (addressLimit: number | null, countryLimit: number | null) =>
      (addressLimit !== null && addresses >= addressLimit) || (countryLimit !== null && countries >= countryLimit);
    if (!reached(settings.flagAddresses, settings.flagCountries)) return;
    // Judged once when the flag's threshold is reached in a window, and once more at the second.
    const over = reached(settings.suspendAddresses, settings.suspendCountries);
    const judged = (await this.ctx.storage.get<{ at: number; level: "flagged" | "suspended" }>("judged")) ?? null;
    if (judged && judged.at >= at - windowMs && (judged.level === "suspended" || !over)) return;
    const level = await judgeSharing(database(this.env.DB), licenceId, window, settings, at);
    if (level) await this.ctx.storage.put("judged", { at, level });
  }

  async sightings(): Promise<Sighting[]> {
    return this.#rows();
  }

  #rows(): Sighting[] {
    return this.ctx.storage.sql
      .exec<{ address: string; country: string | null; first_seen: number; last_seen: number; reports: number }>(
        "select address, country, first_seen, last_seen, reports from sightings order by last_seen desc",
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
