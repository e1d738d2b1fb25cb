// Where licence checks come from, as an isolate reports it to the watch of a key's group
// (decisions 093 and 105): the licence check's side of shared-key detection, with no import of its
// own, so a cold start's first check loads neither the judging nor the staff's list (decision 116).
/** One address a key was checked from, as its watch keeps it. */
export interface Sighting {
  address: string;
  country: string | null;
  firstSeen: number;
  lastSeen: number;
  /** How many times the watch heard of it (each isolate tells it at most once an hour). */
  reports: number;
}

/** One address a check came from, as an isolate reports it. */
export interface Report {
  address: string;
  country: string | null;
  at: number;
}

/** The addresses one licence was checked from since its group's last message. */
export interface LicenceReports {
  licenceId: number;
  reports: Report[];
}

/** What a group's watch answers: the Durable Object's RPC methods the shop calls. */
export interface KeyWatchStub {
  sighted(batch: LicenceReports[]): Promise<void>;
  sightings(licenceId: number): Promise<Sighting[]>;
}
export interface KeyWatchNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): KeyWatchStub;
}

/**
 * How many watches share the shop's licences. A licence belongs to the watch of its number modulo
 * this: an isolate's messages are bounded by the groups, not by the keys it saw, and each watch
 * stays far below what one Durable Object serves.
 */
export const WATCH_GROUPS = 32;
/** The name of the watch that keeps a licence's sightings. */
export const watchNameOf = (licenceId: number) => `licences-${licenceId % WATCH_GROUPS}`;
export const watchOf = (watch: KeyWatchNamespace, licenceId: number) => watch.get(watch.idFromName(watchNameOf(licenceId)));

/** How long an isolate stays quiet about a key and address it already reported. */
const REPORT_EVERY_MS = 60 * 60_000;
/** By default an isolate tells a group's watch at most once a minute, carrying every new address since. */
export const DEFAULT_WATCH_SEND_SECONDS = 60;
/** Enough addresses of one key in one message to reach any threshold; more wait for the next. */
const REPORTS_PER_KEY = 64;
/** Enough for one message of a busy minute; more wait for the next. */
const REPORTS_PER_MESSAGE = 5000;
const MEMO_LIMIT = 50_000;

/**
 * An isolate's memory of the sightings it reported and of those waiting for their group's next
 * message. The licence check uses the isolate's one (`sightingReports`).
 */
export class SightingReports {
  readonly #reported = new Map<string, number>();
  readonly #waiting = new Map<string, { sentAt: number; count: number; licences: Map<number, Report[]> }>();

  /**
   * The licence check's hook: notes where a check of an existing key came from, unless this isolate
   * noted the same key and address within the hour, and tells the watch of the key's group after
   * the answer (`waitUntil`): a group's first addresses at once, later ones together at most once a
   * minute per group (LICENCE_WATCH_SEND_SECONDS), carried by any check of a key of that group.
   * No D1 write, and a program checking from one place costs its watch one report an hour.
   */
  report(
    watch: KeyWatchNamespace | undefined,
    waitUntil: (work: Promise<unknown>) => void,
    sighting: { licenceId: number } & Report,
    sendEveryMs = DEFAULT_WATCH_SEND_SECONDS * 1000,
  ): void {
    if (!watch || sighting.address === "local") return;
    const { licenceId, address, country, at } = sighting;
    const group = watchNameOf(licenceId);
    const memo = `${licenceId}\n${address}`;
    const until = this.#reported.get(memo);
    let batch = this.#waiting.get(group);
    if (until === undefined || until <= at) {
      if (!batch) {
        batch = { sentAt: 0, count: 0, licences: new Map() };
        this.#waiting.set(group, batch);
      }
      const reports = batch.licences.get(licenceId) ?? [];
      if (reports.length < REPORTS_PER_KEY && batch.count < REPORTS_PER_MESSAGE) {
        if (this.#reported.size >= MEMO_LIMIT) this.#reported.clear();
        this.#reported.set(memo, at + REPORT_EVERY_MS);
        reports.push({ address, country, at });
        batch.licences.set(licenceId, reports);
        batch.count++;
      }
    }
    // Any check of a key of the group may carry what waits, once the interval is over.
    if (!batch || batch.count === 0 || at - batch.sentAt < sendEveryMs) return;
    const sent = [...batch.licences].map(([id, reports]) => ({ licenceId: id, reports }));
    batch.licences = new Map();
    batch.count = 0;
    batch.sentAt = at;
    waitUntil(
      watchOf(watch, licenceId)
        .sighted(sent)
        .catch((error: unknown) => console.error("Reporting licence checks to the keys' watch failed", error)),
    );
  }
}

/** The isolate's memory of reports, which every licence check it answers shares. */
export const sightingReports = new SightingReports();
