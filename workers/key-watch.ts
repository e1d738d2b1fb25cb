// A licence key's watch (decision 093): one Durable Object per key, told of the places the key is
// checked from (each isolate tells it at most once an hour per address, after its answer). It keeps
// the addresses it heard of for 30 days in its own SQLite storage, counts the distinct addresses
// and countries of the shop's window, and asks the licences domain to judge the key when an address
// new to the window appears. Staff see its sightings as evidence (disputes, licences at risk).
import { DurableObject } from "cloudflare:workers";
import { judgeSharing, type Sighting } from "~/server/licences/sharing.server";
import { fraudSettingsOf } from "~/server/blocks/fraud-settings.server";
import { database } from "~/server/platform/db/client.server";

const KEEP_MS = 30 * 24 * 3600_000;
/** Enough addresses to judge and show; the oldest go first. */
const MAX_ADDRESSES = 500;
const SETTINGS_FOR_MS = 60_000;

export class KeyWatch extends DurableObject<Env> {
  #settings: { windowMs: number; until: number } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "create table if not exists sightings (address text primary key, country text, first_seen integer not null, last_seen integer not null, reports integer not null)",
    );
  }

  async #windowMs(now: number): Promise<number> {
    if (!this.#settings || this.#settings.until <= now) {
      const settings = await fraudSettingsOf(database(this.env.DB));
      this.#settings = { windowMs: settings.windowHours * 3600_000, until: now + SETTINGS_FOR_MS };
    }
    return this.#settings.windowMs;
  }

  async sighted({
    licenceId,
    address,
    country,
    at,
  }: {
    licenceId: number;
    address: string;
    country: string | null;
    at: number;
  }): Promise<void> {
    const sql = this.ctx.storage.sql;
    const windowMs = await this.#windowMs(at);
    const before = sql.exec<{ last_seen: number }>("select last_seen from sightings where address = ?", address).toArray()[0];
    sql.exec(
      `insert into sightings (address, country, first_seen, last_seen, reports) values (?, ?, ?, ?, 1)
       on conflict (address) do update set last_seen = max(last_seen, excluded.last_seen), reports = reports + 1,
         country = coalesce(excluded.country, country)`,
      address,
      country,
      at,
      at,
    );
    sql.exec("delete from sightings where last_seen < ?", at - KEEP_MS);
    sql.exec("delete from sightings where address not in (select address from sightings order by last_seen desc limit ?)", MAX_ADDRESSES);
    // Only an address new to the window can change the counts.
    if (before && before.last_seen >= at - windowMs) return;
    const window = this.#rows().filter((s) => s.lastSeen >= at - windowMs);
    await judgeSharing(database(this.env.DB), licenceId, window, at);
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
