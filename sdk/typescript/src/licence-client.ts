// The shop's licence check for programs written in TypeScript: the reference for every licence SDK.
// Web standards only (fetch, Web Crypto's Ed25519), so it runs in Node 20+, Deno, Bun and browsers;
// what only Node has (the machine id, a lease file, a download file) is in ./node.ts.
// Nothing in an answer is believed before its signature (over the exact body bytes, with the public
// key built into the program), nonce, key and PC are checked; a VALID answer's signed lease then
// lets the program work offline, but only while the clock has not been set back. The same checks
// judge the answer to releases/latest, the program's auto-update (./releases.ts).
import { type LatestReleaseResult, type ReleaseChannel, releaseVerdict } from "./releases.ts";

export type LicenceCode = "VALID" | "NOT_FOUND" | "NOT_ACTIVATED" | "EXPIRED" | "SUSPENDED" | "REVOKED" | "BANNED" | "HWID_MISMATCH";

/** A signed answer of POST /api/v1/licences/validate, as the server sends it. */
export interface LicenceAnswer {
  valid: boolean;
  code: LicenceCode;
  key: string;
  hwid: string;
  nonce: string;
  issuedAt: string;
  /** Seconds until the program should check again (its heartbeat). */
  ttl: number;
  licence: {
    product: string;
    plan: string;
    activatedAt: string | null;
    expiresAt: string | null;
    entitlements?: string[];
    /** Where the owner renews the licence, keeping its key (absent from older shops; null for lifetime). */
    renewUrl?: string | null;
  } | null;
  lease: { until: string } | null;
  /**
   * Why a SUSPENDED or BANNED answer stopped the key, when the shop's fraud rules did (a disputed
   * payment, a key used from too many places, a blocked PC or network): a sentence to show the user.
   */
  reason?: string;
}

/** Why an answer (or a stored lease) was refused as an attack, not as a network problem. */
export type TamperReason = "signature" | "nonce" | "key" | "hwid" | "stale" | "rollback" | "channel";
/** Why no signed verdict arrived, or why the stored lease could not stand in for one. */
export type OfflineReason = "unreachable" | "rate-limited" | "server-error" | "unexpected-status" | "no-lease" | "lease-expired";

interface ResultBase {
  /** A short sentence for the program's user. */
  message: string;
  /** Whether the licence grants an entitlement ("beta", "configs"); false on every refusal. */
  hasEntitlement(name: string): boolean;
  /**
   * When the licence ends, from a genuine answer about it (VALID, or EXPIRED on its own PC); null for
   * a lifetime licence, a key never used, or when no genuine answer said.
   */
  expiresAt: Date | null;
  /**
   * The signed link where the licence's owner renews it, keeping the key ("3 days left — renew"):
   * from a genuine VALID or EXPIRED answer about a timed licence; null otherwise. Open it in the
   * browser; it works for a few days, so take it from a fresh answer.
   */
  renewUrl: string | null;
}

/** What the program concludes: run, stop (denied or tampered), or let the offline lease decide. */
type Verdict = { message: string } & (
  | { outcome: "valid"; code: "VALID"; offline: boolean; answer: LicenceAnswer; leaseUntil: Date | null }
  | { outcome: "denied"; code: LicenceCode | "WRONG_PRODUCT"; offline: boolean; answer: LicenceAnswer }
  // `reason`: the stored lease's own (no-lease, lease-expired) when the network failed, and
  // `network` why no signed verdict came (unreachable, rate-limited…).
  | { outcome: "offline"; reason: OfflineReason; network?: OfflineReason; code: string | null; retryAfterSeconds?: number }
  | { outcome: "tampered"; reason: TamperReason }
  // The program's own mistake (a malformed key, a too-short hwid, an unknown channel): not an
  // outage, so no lease decides; `field` names what the server refused, `message` is its words.
  | { outcome: "invalid-request"; field: string; code: string | null }
);

export type CheckResult = ResultBase & Verdict;

/** The one answer a program keeps: the last VALID one, exactly as signed. */
export interface StoredLease {
  body: string;
  signature: string;
}

/**
 * Where the last signed verdict is kept between runs (a file, the registry…): a VALID one's lease, or
 * the refusal that ended it. `readNewest`/`writeNewest`, when given, keep the newest genuine answer
 * seen, so that after a restart an older lease put back is still refused (fileLeaseStore in ./node.ts).
 */
export interface LeaseStore {
  read(): Promise<StoredLease | null>;
  write(lease: StoredLease): Promise<void>;
  clear(): Promise<void>;
  readNewest?(): Promise<StoredLease | null>;
  writeNewest?(answer: StoredLease): Promise<void>;
}

/** A lease store in memory: offline use only while the program runs. */
export function memoryLeaseStore(): LeaseStore {
  let kept: StoredLease | null = null;
  let newest: StoredLease | null = null;
  return {
    read: async () => kept,
    write: async (lease) => {
      kept = lease;
    },
    clear: async () => {
      kept = null;
    },
    readNewest: async () => newest,
    writeNewest: async (answer) => {
      newest = answer;
    },
  };
}

/** The program's view of time when it judges: its wall clock and what it has trusted before. */
export interface ClockReading {
  /** The local wall clock, ms since the epoch. */
  now: number;
  /** The newest signed issuedAt the program has trusted, or null. */
  trustedTime: number | null;
  /** How far the wall clock moved against the monotonic clock since that answer (negative: set back), ms. */
  driftMs: number;
}

/** The clock rules every SDK applies (sdk/vectors states them too). */
export const CLOCK_SKEW_MS = 5 * 60_000;
export const MAX_BACKWARD_DRIFT_MS = 2 * 60_000;
const codeOf = (result: CheckResult) => ("code" in result ? result.code : null);

/** The heartbeat's shortest interval. */
export const MIN_HEARTBEAT_SECONDS = 5;

const base64Bytes = (value: string) => Uint8Array.from(atob(value), (c) => c.charCodeAt(0));

function freshNonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const refused = () => false;

function result(fields: Verdict): CheckResult {
  const granted = fields.outcome === "valid" ? (fields.answer.licence?.entitlements ?? []) : [];
  // Only a genuine answer about this licence says when it ends and where to renew it.
  const licence = "answer" in fields ? fields.answer.licence : null;
  return {
    ...fields,
    hasEntitlement: granted.length === 0 ? refused : (name) => granted.includes(name),
    expiresAt: licence?.expiresAt ? new Date(licence.expiresAt) : null,
    renewUrl: licence?.renewUrl ?? null,
  };
}

const tampered = (reason: TamperReason, message: string) => result({ outcome: "tampered", reason, message });
const offline = (reason: OfflineReason, message: string, code: string | null = null, retryAfterSeconds?: number) =>
  result({ outcome: "offline", reason, message, code, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });

const DENIED_MESSAGES: Record<string, string> = {
  NOT_FOUND: "This licence key does not exist.",
  NOT_ACTIVATED: "This licence key has not been activated yet.",
  EXPIRED: "This licence has expired.",
  SUSPENDED: "This licence is paused. Its time stands still until support resumes it.",
  REVOKED: "This licence was revoked (refunded or cancelled).",
  BANNED: "This licence, or this PC, is banned.",
  HWID_MISMATCH: "This key is bound to another PC. Its owner can reset the PC in the members' hub.",
  WRONG_PRODUCT: "This key is for another product.",
};

/** A 200 answer as received: the exact body bytes and the Licence-Signature header. */
export interface SignedResponse {
  body: Uint8Array<ArrayBuffer>;
  signature: string | null;
}

/** A network or server failure before any signed verdict: what the offline lease decides on. */
export interface UnsignedFailure {
  status: number | null;
  body: string;
  retryAfterSeconds?: number;
}

/**
 * The checks themselves, without network, storage or clocks of their own: given what was asked,
 * what came back (or what was stored) and the clocks, what the program must conclude. The client
 * below drives it; the conformance vectors test it case by case.
 */
export class LicenceVerifier {
  private readonly key: CryptoKey;
  private readonly product: string | undefined;

  private constructor(key: CryptoKey, product: string | undefined) {
    this.key = key;
    this.product = product;
  }

  /** `publicKey`: base64 of the shop's 32-byte Ed25519 public key, built into the program. */
  static async create(publicKey: string, product?: string): Promise<LicenceVerifier> {
    const key = await crypto.subtle.importKey("raw", base64Bytes(publicKey), { name: "Ed25519" }, false, ["verify"]);
    return new LicenceVerifier(key, product);
  }

  /** The answer behind a signature, or null when the signature does not verify over these bytes. */
  private async open(body: Uint8Array<ArrayBuffer>, signature: string | null): Promise<LicenceAnswer | null> {
    if (!signature) return null;
    try {
      const raw = base64Bytes(signature);
      if (raw.length !== 64 || !(await crypto.subtle.verify({ name: "Ed25519" }, this.key, raw, body))) return null;
      return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body)) as LicenceAnswer;
    } catch {
      return null;
    }
  }

  /** Judges the answer to a call, or the failure that took its place. */
  async judgeAnswer(
    sent: { key: string; hwid: string; nonce: string },
    response: SignedResponse | UnsignedFailure,
    clock: ClockReading,
  ): Promise<CheckResult> {
    if ("status" in response) return failure(response);
    const answer = await this.open(response.body, response.signature);
    if (!answer) return tampered("signature", "The licence server's answer is not genuine.");
    // A genuine answer to another question: recorded earlier, or asked about another key or PC by
    // a proxy that kept this call's nonce.
    if (answer.nonce !== sent.nonce) return tampered("nonce", "The licence server's answer was not for this check.");
    if (answer.key !== sent.key) return tampered("key", "The licence server's answer was about another key.");
    if (answer.hwid !== sent.hwid) return tampered("hwid", "The licence server's answer was about another PC.");
    if (clock.trustedTime !== null && Date.parse(answer.issuedAt) < clock.trustedTime - CLOCK_SKEW_MS) {
      return tampered("stale", "The licence server's answer is older than one already seen.");
    }
    return this.verdict(answer, false);
  }

  /** Judges the answer to releases/latest for `channel`: judgeAnswer's checks, the channel echoed, the release offered. */
  async judgeRelease(
    sent: { key: string; hwid: string; nonce: string },
    channel: ReleaseChannel,
    response: SignedResponse | UnsignedFailure,
    clock: ClockReading,
    currentVersion?: string,
  ): Promise<LatestReleaseResult> {
    return releaseVerdict(
      await this.judgeAnswer(sent, response, clock),
      channel,
      (message) => tampered("channel", message),
      currentVersion,
    );
  }

  /** When a stored answer was issued (ms), if its signature is the shop's; null otherwise. */
  async issuedAt(stored: StoredLease | null): Promise<number | null> {
    const answer = stored && (await this.open(new TextEncoder().encode(stored.body), stored.signature));
    const time = answer ? Date.parse(answer.issuedAt) : NaN;
    return Number.isFinite(time) ? time : null;
  }

  /** Judges the stored lease for `asked`, when no signed verdict could be had. */
  async judgeLease(asked: { key: string; hwid: string }, stored: StoredLease | null, clock: ClockReading): Promise<CheckResult> {
    if (!stored) return offline("no-lease", "No offline lease is stored.");
    const answer = await this.open(new TextEncoder().encode(stored.body), stored.signature);
    if (!answer) return tampered("signature", "The stored offline lease is not genuine.");
    // A signed refusal kept from an earlier check keeps refusing offline: a ban is not undone by
    // cutting the network.
    if (answer.key === asked.key && answer.hwid === asked.hwid && answer.code !== "VALID") return this.verdict(answer, true);
    if (answer.key !== asked.key || answer.hwid !== asked.hwid || !answer.lease) {
      return offline("no-lease", "No offline lease is stored for this key on this PC.");
    }
    const issuedAt = Date.parse(answer.issuedAt);
    if (clock.now < Math.max(issuedAt, clock.trustedTime ?? issuedAt) - CLOCK_SKEW_MS || clock.driftMs < -MAX_BACKWARD_DRIFT_MS) {
      return tampered("rollback", "The computer's clock was set back.");
    }
    if (clock.trustedTime !== null && issuedAt < clock.trustedTime - CLOCK_SKEW_MS)
      return tampered("stale", "The stored offline lease is older than an answer already seen.");
    const expiresAt = answer.licence?.expiresAt ? Date.parse(answer.licence.expiresAt) : Infinity;
    const until = Math.min(Date.parse(answer.lease.until), expiresAt);
    if (!(clock.now < until)) return offline("lease-expired", "The offline lease has ended.");
    return this.verdict(answer, true);
  }

  private verdict(answer: LicenceAnswer, fromLease: boolean): CheckResult {
    if (answer.code !== "VALID")
      return result({
        outcome: "denied",
        code: answer.code,
        // Whether a stored answer decided, as on a valid result.
        offline: fromLease,
        answer,
        // The shop's own words when the answer gives them (signed, like the rest of it).
        message:
          typeof answer.reason === "string" && answer.reason !== ""
            ? answer.reason
            : (DENIED_MESSAGES[answer.code] ?? "This licence is not valid."),
      });
    if (this.product !== undefined && answer.licence?.product !== this.product) {
      return result({ outcome: "denied", code: "WRONG_PRODUCT", offline: fromLease, answer, message: DENIED_MESSAGES.WRONG_PRODUCT! });
    }
    return result({
      outcome: "valid",
      code: "VALID",
      offline: fromLease,
      answer,
      leaseUntil: answer.lease ? new Date(answer.lease.until) : null,
      message: "Licence valid.",
    });
  }
}

function failure({ status, body, retryAfterSeconds }: UnsignedFailure): CheckResult {
  if (status === null) return offline("unreachable", "The licence server could not be reached.");
  let code: string | null = null;
  let error: { code?: unknown; message?: unknown; field?: unknown } | undefined;
  try {
    error = (JSON.parse(body) as { error?: typeof error }).error;
    code = error?.code?.toString() ?? null;
  } catch {
    // Not the API's error shape: something else answered.
  }
  if (status === 400)
    return result({
      outcome: "invalid-request",
      field: typeof error?.field === "string" ? error.field : "",
      code,
      message:
        typeof error?.message === "string" && error.message !== "" ? error.message : "The licence server refused the request as malformed.",
    });
  if (status === 429) return offline("rate-limited", "Too many licence checks; trying again later.", code, retryAfterSeconds);
  if (status >= 500) return offline("server-error", "The licence server is unavailable.", code);
  return offline("unexpected-status", `The licence server answered HTTP ${status}.`, code);
}

export interface LicenceClientOptions {
  /** The shop's address, e.g. "https://shop.example.com". */
  baseUrl: string;
  /** The shop's public key (base64, from GET /api/v1/licences/signing-key), built into the program. */
  publicKey: string;
  /** This program's product, as the shop names it: keys for other products are refused. */
  product?: string;
  /** The PC's name, shown to the key's owner in the hub (printable ASCII, at most 64 characters). */
  device?: string;
  /** Where the last VALID answer is kept for offline use; by default only in memory. */
  store?: LeaseStore;
  /** This program's own version ("1.4.0"): latestRelease answers "up-to-date" unless the shop's newest is newer. */
  version?: string;
  /** For tests and unusual runtimes; defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * One obvious call: `await client.check(key, hwid)`. Each call asks the shop; when no signed
 * verdict comes back (no network, 429, 5xx), the stored lease decides.
 */
export class LicenceClient {
  private readonly options: LicenceClientOptions;
  private readonly verifier: Promise<LicenceVerifier>;
  private readonly store: LeaseStore;
  private trustedTime: number | null = null;
  // The newest answer kept by the store, read once before the first call.
  private restored: Promise<void> | null = null;
  private latest: CheckResult | null = null;
  // Wall and monotonic clocks read together at the last trusted answer (or the start).
  private anchor = { wall: Date.now(), monotonic: performance.now() };

  constructor(options: LicenceClientOptions) {
    this.options = options;
    this.verifier = LicenceVerifier.create(options.publicKey, options.product);
    this.store = options.store ?? memoryLeaseStore();
  }

  /** Before the first call: the newest time trusted in an earlier run, from the store's newest answer. */
  private restore(verifier: LicenceVerifier): Promise<void> {
    this.restored ??= (async () => {
      const issuedAt = await verifier.issuedAt((await this.store.readNewest?.()) ?? null);
      if (issuedAt !== null) this.trustedTime = Math.max(this.trustedTime ?? issuedAt, issuedAt);
    })();
    return this.restored;
  }

  private clock(): ClockReading {
    const now = Date.now();
    return { now, trustedTime: this.trustedTime, driftMs: now - this.anchor.wall - (performance.now() - this.anchor.monotonic) };
  }

  private async call(
    endpoint: string,
    sent: { key: string; hwid: string; nonce: string },
    extra: Record<string, string> = {},
  ): Promise<SignedResponse | UnsignedFailure> {
    const request = new Request(new URL(`/api/v1/${endpoint}`, this.options.baseUrl), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...sent, ...(this.options.device ? { device: this.options.device } : {}), ...extra }),
    });
    try {
      const response = await (this.options.fetch ?? fetch)(request);
      const body = new Uint8Array(await response.arrayBuffer());
      if (response.status !== 200) {
        const retryAfter = Number(response.headers.get("Retry-After"));
        return {
          status: response.status,
          body: new TextDecoder().decode(body),
          ...(retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
        };
      }
      return { body, signature: response.headers.get("Licence-Signature") };
    } catch {
      return { status: null, body: "" };
    }
  }

  /** After a judged answer: a genuine one moves the trusted time and the lease; false for any other. */
  private async trust(judged: CheckResult, response: SignedResponse | UnsignedFailure): Promise<boolean> {
    if (!("answer" in judged) || !("signature" in response)) return false;
    // A genuine answer: the shop's time is now the program's, and the drift is measured from here.
    this.trustedTime = Math.max(this.trustedTime ?? 0, Date.parse(judged.answer.issuedAt));
    this.anchor = { wall: Date.now(), monotonic: performance.now() };
    // The latest signed verdict stands in offline: a VALID one works until its lease ends, a
    // refusal keeps refusing (so a lease file copied back after a ban is not the newest answer).
    const answer = { body: new TextDecoder().decode(response.body), signature: response.signature ?? "" };
    await this.store.writeNewest?.(answer);
    if (judged.outcome === "valid" || judged.outcome === "denied") await this.store.write(answer);
    else await this.store.clear();
    return true;
  }

  /** Checks `key` on the PC `hwid` (16 to 256 printable characters). */
  async check(key: string, hwid: string): Promise<CheckResult> {
    this.latest = await this.ask(key, hwid);
    return this.latest;
  }

  private async ask(key: string, hwid: string): Promise<CheckResult> {
    const verifier = await this.verifier;
    await this.restore(verifier);
    const sent = { key, hwid, nonce: freshNonce() };
    const response = await this.call("licences/validate", sent);
    const judged = await verifier.judgeAnswer(sent, response, this.clock());
    if ((await this.trust(judged, response)) || judged.outcome !== "offline") return judged;
    const leased = await verifier.judgeLease(sent, await this.store.read(), this.clock());
    if (leased.outcome !== "offline") return leased;
    // The lease's own reason (no-lease, lease-expired), and why the shop gave no verdict.
    return {
      ...leased,
      network: judged.reason,
      code: judged.code,
      ...(judged.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: judged.retryAfterSeconds }),
      message: `${judged.message} ${leased.message}`,
    };
  }

  /**
   * Checks `key` again while the program runs and calls `onChange` when the outcome or code changes
   * (a refund, a ban, the lease running out), measured from the program's last check. Every
   * `intervalSeconds` (at least 5), else as the shop's answer suggests (10 minutes), never sooner
   * than a 429 asked. `stop()` may be called from `onChange`; a check in flight is not waited for
   * and calls back no more.
   */
  startHeartbeat(key: string, hwid: string, onChange: (result: CheckResult) => void, options: { intervalSeconds?: number } = {}) {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = this.latest;
    const schedule = () => {
      const ttl = last && "answer" in last ? last.answer.ttl : 0;
      const retry = last && "retryAfterSeconds" in last ? (last.retryAfterSeconds ?? 0) : 0;
      const seconds = Math.max(options.intervalSeconds ?? (ttl > 0 ? ttl : 600), MIN_HEARTBEAT_SECONDS, retry);
      timer = setTimeout(beat, seconds * 1000);
    };
    const beat = async () => {
      const next = await this.check(key, hwid);
      if (stopped) return;
      const changed = last !== null && (next.outcome !== last.outcome || codeOf(next) !== codeOf(last));
      last = next;
      schedule();
      if (changed) onChange(next);
    };
    if (last) schedule();
    else void beat();
    return {
      stop() {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }

  /** The newest release `key` may have on `channel`, from a signed answer checked as check() checks its own (never from the lease). */
  async latestRelease(key: string, hwid: string, channel: ReleaseChannel = "stable"): Promise<LatestReleaseResult> {
    const verifier = await this.verifier;
    const sent = { key, hwid, nonce: freshNonce() };
    await this.restore(verifier);
    const response = await this.call("releases/latest", sent, { channel });
    const judged = await verifier.judgeRelease(sent, channel, response, this.clock(), this.options.version);
    await this.trust(judged.licence, response);
    return judged;
  }
}
