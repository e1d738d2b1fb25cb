// The licence SDKs' conformance vectors (sdk/vectors/licence-vectors.json), made here by the code
// the API answers with: licence rows in D1, validateLicence at a fixed clock and nonce, signAnswer
// with a published test key. Ed25519 is deterministic, so the file must come out byte for byte as
// committed: when the server's answers change, this test fails until the vectors are regenerated
// (`npx vitest run -u test/licence-vectors.test.ts`) and every SDK passes them again.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import type { ReleaseChannel } from "~/lib/releases";
import type { ValidateLicenceInput } from "~/lib/schemas/licences";
import { latestReleaseAnswer } from "~/server/releases/release-links.server";
import { licenceSigner, type LicenceSigner, signAnswer } from "~/server/licences/signing.server";
import { type LicenceAnswer, offlineLeaseMs, validateLicence } from "~/server/licences/validation.server";
import { type DeactivationAnswer, releaseOwnPc } from "~/server/licences/licences.server";
import { signedRenewLink } from "~/server/licences/renew-links.server";
import { licences, releases } from "~/server/platform/db/schema.server";
import { toBase64 } from "~/server/platform/tokens.server";
import { db } from "../helpers";

// RFC 8032's first and second Ed25519 test keys (section 7.1): published, so never a shop's key.
const TEST_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const OTHER_SEED = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
// A PKCS#8 Ed25519 private key is this fixed header followed by the 32-byte seed.
const PKCS8_HEADER = "302e020100300506032b657004220420";

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
const signerOf = async (seed: string): Promise<LicenceSigner> => {
  const signer = await licenceSigner(toBase64(hexBytes(PKCS8_HEADER + seed)));
  if (!signer.ok) throw new Error(signer.problem.message);
  return signer.value;
};

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const ISSUED = Date.parse("2030-01-15T12:00:00.000Z");
const at = (ms: number) => new Date(ms).toISOString();
/** The SDKs' clock rules, stated in the file so that a port reads them next to the cases. */
const RULES = { skewSeconds: 300, maxBackwardDriftSeconds: 120 };

const HWID = "VECTOR-HWID-5f0c1a9e2b7d4c36";
const OTHER_HWID = "VECTOR-HWID-OTHER-PC-0000000001";
const NONCE = "00112233445566778899aabbccddeeff";
const OTHER_NONCE = "ffeeddccbbaa99887766554433221100";

/** The licence rows behind the vectors; each key names its state. */
const ROWS = {
  "VECTOR-WEEKLY-ACTIVE": {
    product: "Vertex Rust",
    plan: "weekly",
    activatedAt: ISSUED - DAY,
    expiresAt: ISSUED + 6 * DAY,
    hwid: HWID,
    entitlements: ["config-library"],
  },
  // The entitlements a monthly plan's sale copies: the program unlocks its beta features by them.
  "VECTOR-MONTHLY-ENDS-SOON": {
    product: "Vertex Rust",
    plan: "monthly",
    activatedAt: ISSUED - 30 * DAY + 10 * HOUR,
    expiresAt: ISSUED + 10 * HOUR,
    hwid: HWID,
    entitlements: ["beta", "configs", "priority-support"],
  },
  // A product name beyond ASCII: the signature covers its UTF-8 bytes exactly as sent.
  "VECTOR-LIFETIME": { product: "Vertex Rust — Édition ✦", plan: "lifetime", activatedAt: ISSUED - 90 * DAY, expiresAt: null, hwid: HWID },
  "VECTOR-EXPIRED": { product: "Vertex Rust", plan: "daily", activatedAt: ISSUED - 25 * HOUR, expiresAt: ISSUED - HOUR, hwid: HWID },
  "VECTOR-REVOKED": {
    product: "Vertex Rust",
    plan: "weekly",
    activatedAt: ISSUED - DAY,
    expiresAt: ISSUED + 6 * DAY,
    hwid: HWID,
    revokedAt: ISSUED - HOUR,
  },
  "VECTOR-BANNED": {
    product: "Vertex Rust",
    plan: "weekly",
    activatedAt: ISSUED - DAY,
    expiresAt: ISSUED + 6 * DAY,
    hwid: HWID,
    bannedAt: ISSUED - HOUR,
  },
  "VECTOR-PAUSED": {
    product: "Vertex Rust",
    plan: "weekly",
    activatedAt: ISSUED - DAY,
    expiresAt: ISSUED + 6 * DAY,
    hwid: HWID,
    pausedAt: ISSUED - HOUR,
  },
  "VECTOR-NEVER-USED": { product: "Vertex Rust", plan: "weekly", activatedAt: null, expiresAt: null, hwid: null },
  // Keys whose PC releases itself (deactivate): one free to move, one that moved a day ago.
  "VECTOR-MOVING": { product: "Vertex Rust", plan: "weekly", activatedAt: ISSUED - DAY, expiresAt: ISSUED + 6 * DAY, hwid: HWID },
  "VECTOR-MOVED-RECENTLY": {
    product: "Vertex Rust",
    plan: "weekly",
    activatedAt: ISSUED - 2 * DAY,
    expiresAt: ISSUED + 5 * DAY,
    hwid: HWID,
    lastOwnerResetAt: ISSUED - DAY,
  },
} as const;

async function storeRows() {
  for (const [key, row] of Object.entries(ROWS)) {
    await db.delete(licences).where(eq(licences.key, key));
    await db.insert(licences).values({
      key,
      ownerEmail: "vectors@example.test",
      createdAt: ISSUED - 100 * DAY,
      ...row,
      entitlements: "entitlements" in row ? [...row.entitlements] : [],
    });
  }
}

/** The published releases behind the release cases (the beta one is published after the "none yet" case). */
const RELEASE_ROWS = [
  {
    id: "00000000-0000-4000-8000-00000000a140",
    version: "1.4.0",
    channel: "stable",
    sha256: "5f2b5a8c3d7e9f1a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f70",
    size: 73_400_320,
  },
  {
    id: "00000000-0000-4000-8000-00000000a132",
    version: "1.3.2",
    channel: "stable",
    sha256: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
    size: 71_303_168,
  },
  {
    id: "00000000-0000-4000-8000-00000000b150",
    version: "1.5.0-beta.2",
    channel: "beta",
    sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    size: 75_497_472,
  },
] as const;
const SHOP = "https://shop.example";

async function storeReleases(channel: ReleaseChannel) {
  for (const row of RELEASE_ROWS.filter((release) => release.channel === channel)) {
    await db.delete(releases).where(eq(releases.id, row.id));
    await db.insert(releases).values({
      ...row,
      product: "Vertex Rust",
      notes: `**${row.version}**: faster start-up.`,
      fileName: `Vertex Setup ${row.version}.exe`,
      objectKey: `releases/vectors/${row.id}`,
      state: "published",
      createdAt: ISSUED - 3 * DAY,
      publishedAt: ISSUED - (row.version === "1.3.2" ? 2 : 1) * DAY,
    });
  }
}

interface Signed {
  answer: LicenceAnswer;
  body: string;
  signature: string;
}

async function sign(signer: LicenceSigner, answer: LicenceAnswer | DeactivationAnswer): Promise<Signed> {
  const { bytes, signature } = await signAnswer(signer, answer);
  return { answer: answer as LicenceAnswer, body: new TextDecoder().decode(bytes), signature };
}

/** What the API answers, at the vectors' clock, for one request. */
async function answerFor(signer: LicenceSigner, input: Partial<ValidateLicenceInput> & { key: string }): Promise<Signed> {
  const answer = await validateLicence(
    db,
    { hwid: HWID, nonce: NONCE, activate: true, ...input },
    {
      now: ISSUED,
      leaseMs: offlineLeaseMs("72"),
      recordCheck: () => undefined,
      admit: async () => true,
      renewLink: (licence) => signedRenewLink(signer, SHOP, licence, ISSUED),
    },
  );
  if (!answer.ok) throw new Error(answer.problem.message);
  return sign(signer, answer.value);
}

/** What the API answers to releases/latest, at the vectors' clock, for one request. */
async function releaseAnswerFor(
  signer: LicenceSigner,
  channel: ReleaseChannel,
  input: Partial<ValidateLicenceInput> & { key: string },
): Promise<Signed> {
  const validation = await answerFor(signer, input);
  return sign(signer, await latestReleaseAnswer(db, env.DOWNLOADS, signer, SHOP, validation.answer, channel, ISSUED));
}

/** What the API answers to deactivate, at the vectors' clock, for one request. */
async function deactivationFor(signer: LicenceSigner, key: string, hwid = HWID): Promise<Signed> {
  const answer = await releaseOwnPc(
    db,
    { key, hwid, nonce: NONCE },
    { now: ISSUED, cooldownMs: 7 * DAY, ip: null, admit: async () => true },
  );
  if (!answer.ok) throw new Error(answer.problem.message);
  return sign(signer, answer.value);
}

/** The API's own 400 for a request that breaks its rules, as the Worker answers it. */
async function refusedAsMalformed(body: Record<string, string>) {
  const response = await exports.default.fetch(
    new Request("https://shop.example/api/v1/licences/validate", {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.250" },
      body: JSON.stringify(body),
    }),
  );
  if (response.status !== 400) throw new Error(`the API answered ${response.status}, not 400`);
  return { status: 400, body: await response.text() };
}

/** What the SDK must expose of the licence, where a case states it: its expiry and its renewal link (null: none). */
type Exposed = { expiresAt?: string | null; renewUrl?: string | null };

type Expect =
  | ({ outcome: "valid"; code: "VALID" | "RELEASED"; offline: boolean } & Exposed)
  | ({ outcome: "denied"; code: string; offline?: boolean } & Exposed)
  | { outcome: "invalid-request"; field: string }
  | { outcome: "offline"; reason: "unreachable" | "rate-limited" | "server-error" | "unexpected-status" | "no-lease" | "lease-expired" }
  | { outcome: "tampered"; reason: "signature" | "nonce" | "key" | "hwid" | "stale" | "rollback" | "channel" };

interface Clock {
  /** The local wall clock when the SDK decides. */
  now: string;
  /** The newest signed issuedAt the program trusted before this answer (null: none). */
  trustedTime: string | null;
  /** How far the wall clock moved against the monotonic clock since that trusted answer (negative: set back). */
  driftSeconds: number;
}

const clock = (now: number, trusted: number | null = null, driftSeconds = 0): Clock => ({
  now: at(now),
  trustedTime: trusted === null ? null : at(trusted),
  driftSeconds,
});

/** The request the SDK sent (online) or is checking (offline), with the options it was built with. */
const request = (key: string, hwid = HWID, product?: string) => ({ key, hwid, nonce: NONCE, ...(product ? { product } : {}) });

const online = (
  name: string,
  req: ReturnType<typeof request>,
  response: { status: number; body?: string; signature?: string | null } | { network: "unreachable" },
  time: Clock,
  expect: Expect,
) => ({
  name,
  kind: "online" as const,
  request: req,
  response: "network" in response ? response : { signature: null, ...response },
  clock: time,
  expect,
});

const offline = (
  name: string,
  req: ReturnType<typeof request>,
  stored: { body: string; signature: string } | null,
  time: Clock,
  expect: Expect,
) => ({
  name,
  kind: "offline" as const,
  request: req,
  stored,
  clock: time,
  expect,
});

/** The same body with one field's text replaced, the signature kept. */
function edited(signed: Signed, from: string, to: string) {
  if (!signed.body.includes(from)) throw new Error(`${from} is not in the body`);
  return { status: 200, body: signed.body.replace(from, to), signature: signed.signature };
}

async function vectors() {
  const signer = await signerOf(TEST_SEED);
  const other = await signerOf(OTHER_SEED);
  await storeRows();

  const weekly = await answerFor(signer, { key: "VECTOR-WEEKLY-ACTIVE" });
  const soon = await answerFor(signer, { key: "VECTOR-MONTHLY-ENDS-SOON" });
  const lifetime = await answerFor(signer, { key: "VECTOR-LIFETIME" });
  const ok200 = (s: Signed) => ({ status: 200, body: s.body, signature: s.signature });
  const stored = (s: Signed) => ({ body: s.body, signature: s.signature });
  const now = clock(ISSUED);
  const valid = { outcome: "valid", code: "VALID", offline: false } as const;
  const validOffline = { outcome: "valid", code: "VALID", offline: true } as const;
  const weeklyRequest = request("VECTOR-WEEKLY-ACTIVE");
  const badSignature = { outcome: "tampered", reason: "signature" } as const;

  const fieldEdits: [string, string, string][] = [
    ["valid", '"valid":true', '"valid":false'],
    ["code", '"code":"VALID"', '"code":"VALID "'],
    ["key", '"key":"VECTOR-WEEKLY-ACTIVE"', '"key":"VECTOR-WEEKLY-ACTIVF"'],
    ["hwid", `"hwid":"${HWID}"`, `"hwid":"${HWID.slice(0, -1)}7"`],
    ["nonce", `"nonce":"${NONCE}"`, `"nonce":"${NONCE.slice(0, -1)}0"`],
    ["issuedAt", `"issuedAt":"${at(ISSUED)}"`, `"issuedAt":"${at(ISSUED + DAY)}"`],
    ["ttl", '"ttl":600', '"ttl":6000'],
    ["licence.expiresAt", `"expiresAt":"${at(ISSUED + 6 * DAY)}"`, `"expiresAt":"${at(ISSUED + 60 * DAY)}"`],
    ["lease.until", `"until":"${at(ISSUED + 72 * HOUR)}"`, `"until":"${at(ISSUED + 720 * HOUR)}"`],
    ["licence.renewUrl", `"renewUrl":"${SHOP}/dashboard/renew/`, `"renewUrl":"https://evil.example/dashboard/renew/`],
  ];

  // Genuine answers to other questions: the same call's nonce kept by a proxy that asked about
  // another key or PC, and a recorded answer to an earlier call.
  const swappedKey = await answerFor(signer, { key: "VECTOR-LIFETIME" });
  const swappedHwid = await answerFor(signer, { key: "VECTOR-NEVER-USED", hwid: OTHER_HWID, activate: false });
  const otherNonce = await answerFor(signer, { key: "VECTOR-WEEKLY-ACTIVE", nonce: OTHER_NONCE });
  // Not something the server signs (its lease never passes the expiry): an SDK still stops at the expiry.
  const leasePastExpiry = await sign(signer, { ...soon.answer, lease: { until: at(ISSUED + 72 * HOUR) } });
  const revoked = await answerFor(signer, { key: "VECTOR-REVOKED" });

  const expired = await answerFor(signer, { key: "VECTOR-EXPIRED" });
  const exposed = (signed: Signed): Exposed => ({
    expiresAt: signed.answer.licence?.expiresAt ?? null,
    renewUrl: signed.answer.licence?.renewUrl ?? null,
  });
  const cases = [
    online("a VALID answer", weeklyRequest, ok200(weekly), now, valid),
    // The program reads when the licence ends and where its owner renews it ("3 days left — renew").
    online("a VALID answer carries the licence's expiry and its renewal link", weeklyRequest, ok200(weekly), now, {
      ...valid,
      ...exposed(weekly),
    }),
    online("a lifetime licence's VALID answer has no expiry and no renewal link", request("VECTOR-LIFETIME"), ok200(lifetime), now, {
      ...valid,
      ...exposed(lifetime),
    }),
    online("a signed EXPIRED answer to the bound PC carries the renewal link", request("VECTOR-EXPIRED"), ok200(expired), now, {
      outcome: "denied",
      code: "EXPIRED",
      offline: false,
      ...exposed(expired),
    }),
    online(
      "a VALID answer whose product name is beyond ASCII (signed over its UTF-8 bytes)",
      request("VECTOR-LIFETIME"),
      ok200(lifetime),
      now,
      valid,
    ),
    online(
      "a VALID answer while the local clock is behind the server's (the server's time is trusted)",
      weeklyRequest,
      ok200(weekly),
      clock(ISSUED - 3 * DAY),
      valid,
    ),
    online(
      "a VALID answer for the product the program names",
      request("VECTOR-WEEKLY-ACTIVE", HWID, "Vertex Rust"),
      ok200(weekly),
      now,
      valid,
    ),
    online(
      "a VALID answer for another product than the program's",
      request("VECTOR-WEEKLY-ACTIVE", HWID, "Vertex Apex"),
      ok200(weekly),
      now,
      { outcome: "denied", code: "WRONG_PRODUCT", offline: false },
    ),
    ...(
      [
        ["VECTOR-REVOKED", {}, "REVOKED"],
        ["VECTOR-BANNED", {}, "BANNED"],
        ["VECTOR-PAUSED", {}, "SUSPENDED"],
        ["VECTOR-EXPIRED", {}, "EXPIRED"],
        ["VECTOR-UNKNOWN", {}, "NOT_FOUND"],
        ["VECTOR-NEVER-USED", { activate: false }, "NOT_ACTIVATED"],
      ] as const
    ).map(async ([key, extra, code]) =>
      online(`a signed ${code} answer`, request(key), ok200(await answerFor(signer, { key, ...extra })), now, {
        outcome: "denied",
        code,
        offline: false,
      }),
    ),
    // Only the bound PC reads a stopped licence's terms: another PC gets the code with licence null.
    online(
      "a signed EXPIRED answer to a PC the key is not bound to (licence null)",
      request("VECTOR-EXPIRED", OTHER_HWID),
      ok200(await answerFor(signer, { key: "VECTOR-EXPIRED", hwid: OTHER_HWID })),
      now,
      { outcome: "denied", code: "EXPIRED", offline: false },
    ),
    online(
      "a signed HWID_MISMATCH answer (the key is bound to another PC)",
      request("VECTOR-WEEKLY-ACTIVE", OTHER_HWID),
      ok200(await answerFor(signer, { key: "VECTOR-WEEKLY-ACTIVE", hwid: OTHER_HWID })),
      now,
      { outcome: "denied", code: "HWID_MISMATCH", offline: false },
    ),
    ...fieldEdits.map(([field, from, to]) =>
      online(`a VALID answer with ${field} edited`, weeklyRequest, edited(weekly, from, to), now, badSignature),
    ),
    online(
      "a VALID answer re-serialised with other whitespace",
      weeklyRequest,
      { status: 200, body: JSON.stringify(weekly.answer, null, 1), signature: weekly.signature },
      now,
      badSignature,
    ),
    online("an unsigned answer", weeklyRequest, { status: 200, body: weekly.body }, now, badSignature),
    online(
      "a signature that is not base64 of 64 bytes",
      weeklyRequest,
      { status: 200, body: weekly.body, signature: "bm90IGEgc2lnbmF0dXJl" },
      now,
      badSignature,
    ),
    online("an answer signed by another key", weeklyRequest, ok200(await sign(other, weekly.answer)), now, badSignature),
    online("a genuine answer about another key, with this call's nonce", weeklyRequest, ok200(swappedKey), now, {
      outcome: "tampered",
      reason: "key",
    }),
    online("a genuine answer about another PC, with this call's nonce", request("VECTOR-NEVER-USED"), ok200(swappedHwid), now, {
      outcome: "tampered",
      reason: "hwid",
    }),
    online("a genuine answer to another call (a replay)", weeklyRequest, ok200(otherNonce), now, { outcome: "tampered", reason: "nonce" }),
    online(
      "a genuine answer issued before the newest answer already trusted",
      weeklyRequest,
      ok200(weekly),
      clock(ISSUED + DAY, ISSUED + DAY),
      { outcome: "tampered", reason: "stale" },
    ),
    online(
      "an answer issued within the skew of the newest trusted",
      weeklyRequest,
      ok200(weekly),
      clock(ISSUED, ISSUED + 4 * 60_000),
      valid,
    ),
    online("no network", weeklyRequest, { network: "unreachable" }, now, { outcome: "offline", reason: "unreachable" }),
    online(
      "rate limited (429)",
      weeklyRequest,
      { status: 429, body: '{"error":{"code":"RATE_LIMITED","message":"Too many requests; try again in a minute"}}' },
      now,
      {
        outcome: "offline",
        reason: "rate-limited",
      },
    ),
    online(
      "the server is unavailable (503)",
      weeklyRequest,
      { status: 503, body: '{"error":{"code":"UNAVAILABLE","message":"Licence checks are not available right now"}}' },
      now,
      {
        outcome: "offline",
        reason: "server-error",
      },
    ),
    online("an unexpected status (404 from something in the way)", weeklyRequest, { status: 404, body: "<html>Not found</html>" }, now, {
      outcome: "offline",
      reason: "unexpected-status",
    }),
    // The program's own mistake, as the API refuses it: no lease and no waiting mends it.
    online(
      "a request the API refuses as malformed (400: an hwid too short)",
      request("VECTOR-WEEKLY-ACTIVE", "SHORT-HWID"),
      await refusedAsMalformed({ key: "VECTOR-WEEKLY-ACTIVE", hwid: "SHORT-HWID", nonce: NONCE }),
      now,
      { outcome: "invalid-request", field: "hwid" },
    ),

    offline("a lease in force", weeklyRequest, stored(weekly), clock(ISSUED + HOUR, ISSUED, 0), validOffline),
    offline(
      "a lease in force, read at the program's next start (no trusted time in memory)",
      weeklyRequest,
      stored(weekly),
      clock(ISSUED + 71 * HOUR),
      validOffline,
    ),
    offline(
      "a lease in force after the PC slept (the wall clock ran ahead of the monotonic clock)",
      weeklyRequest,
      stored(weekly),
      clock(ISSUED + 20 * HOUR, ISSUED, 8 * 3600),
      validOffline,
    ),
    offline("a lease that has ended", weeklyRequest, stored(weekly), clock(ISSUED + 72 * HOUR), {
      outcome: "offline",
      reason: "lease-expired",
    }),
    offline("a lease cut short by the licence's expiry", request("VECTOR-MONTHLY-ENDS-SOON"), stored(soon), clock(ISSUED + 11 * HOUR), {
      outcome: "offline",
      reason: "lease-expired",
    }),
    offline(
      "a lease reaching past the licence's expiry ends at the expiry",
      request("VECTOR-MONTHLY-ENDS-SOON"),
      stored(leasePastExpiry),
      clock(ISSUED + 11 * HOUR),
      {
        outcome: "offline",
        reason: "lease-expired",
      },
    ),
    offline("a lifetime key's lease in force", request("VECTOR-LIFETIME"), stored(lifetime), clock(ISSUED + 48 * HOUR), validOffline),
    offline("no stored lease", weeklyRequest, null, now, { outcome: "offline", reason: "no-lease" }),
    // The signed refusal that ended the lease is kept: offline, the program hears it again.
    offline("a stored signed REVOKED answer (the refusal kept)", request("VECTOR-REVOKED"), stored(revoked), clock(ISSUED + HOUR, ISSUED), {
      outcome: "denied",
      code: "REVOKED",
      offline: true,
    }),
    offline("a stored signed REVOKED answer for another PC", request("VECTOR-REVOKED", OTHER_HWID), stored(revoked), clock(ISSUED + HOUR), {
      outcome: "offline",
      reason: "no-lease",
    }),
    offline("a stored lease for another key", request("VECTOR-LIFETIME"), stored(weekly), clock(ISSUED + HOUR), {
      outcome: "offline",
      reason: "no-lease",
    }),
    offline("a stored lease for another PC", request("VECTOR-WEEKLY-ACTIVE", OTHER_HWID), stored(weekly), clock(ISSUED + HOUR), {
      outcome: "offline",
      reason: "no-lease",
    }),
    offline(
      "a stored lease whose until was edited",
      weeklyRequest,
      {
        body: edited(weekly, `"until":"${at(ISSUED + 72 * HOUR)}"`, `"until":"${at(ISSUED + 720 * HOUR)}"`).body,
        signature: weekly.signature,
      },
      clock(ISSUED + 100 * HOUR),
      badSignature,
    ),
    offline(
      "a stored lease signed by another key",
      weeklyRequest,
      stored(await sign(other, weekly.answer)),
      clock(ISSUED + HOUR),
      badSignature,
    ),
    offline(
      "a stored lease older than the newest answer trusted (an earlier lease file put back)",
      weeklyRequest,
      stored(weekly),
      clock(ISSUED + 4 * HOUR, ISSUED + 3 * HOUR),
      {
        outcome: "tampered",
        reason: "stale",
      },
    ),
    offline("a clock set back before the lease's issuedAt", weeklyRequest, stored(weekly), clock(ISSUED - 2 * HOUR), {
      outcome: "tampered",
      reason: "rollback",
    }),
    offline(
      "a clock behind the lease's issuedAt by less than the skew",
      weeklyRequest,
      stored(weekly),
      clock(ISSUED - 4 * 60_000),
      validOffline,
    ),
    offline("a clock set back before the newest trusted time", weeklyRequest, stored(weekly), clock(ISSUED + 2 * HOUR, ISSUED + 3 * HOUR), {
      outcome: "tampered",
      reason: "rollback",
    }),
    offline(
      "a wall clock set back against the monotonic clock while the program runs",
      weeklyRequest,
      stored(weekly),
      clock(ISSUED + 10 * HOUR, ISSUED, -3 * 60),
      {
        outcome: "tampered",
        reason: "rollback",
      },
    ),
    offline(
      "a wall clock that drifted back by less than two minutes",
      weeklyRequest,
      stored(weekly),
      clock(ISSUED + 10 * HOUR, ISSUED, -90),
      validOffline,
    ),
  ];

  // Releases: the newest per channel that each licence may have, and what an SDK must refuse.
  const stableFor = (key: string) => ({ ...request(key), channel: "stable" as ReleaseChannel });
  const betaFor = (key: string) => ({ ...request(key), channel: "beta" as ReleaseChannel });
  await storeReleases("stable");
  const noBetaYet = await releaseAnswerFor(signer, "beta", { key: "VECTOR-MONTHLY-ENDS-SOON" });
  await storeReleases("beta");
  const weeklyStable = await releaseAnswerFor(signer, "stable", { key: "VECTOR-WEEKLY-ACTIVE" });
  const monthlyBeta = await releaseAnswerFor(signer, "beta", { key: "VECTOR-MONTHLY-ENDS-SOON" });
  const offered = (signed: Signed) => {
    const release = (
      signed.answer as unknown as {
        release: { version: string; channel: string; size: number; sha256: string; url: string; urlExpiresAt: string } | null;
      }
    ).release;
    if (!release) throw new Error("no release offered");
    return {
      version: release.version,
      channel: release.channel,
      size: release.size,
      sha256: release.sha256,
      url: release.url,
      urlExpiresAt: release.urlExpiresAt,
    };
  };
  const release = (
    name: string,
    req: ReturnType<typeof stableFor>,
    response: Parameters<typeof online>[2],
    licence: Expect,
    outcome: { error: string | null; release?: ReturnType<typeof offered> },
  ) => ({
    ...online(name, req, response, now, licence),
    kind: "release" as const,
    expect: { ...licence, error: outcome.error, release: outcome.release ?? null },
  });
  const releaseTampered = (reason: "signature" | "nonce" | "channel") => ({ outcome: "tampered", reason }) as const;
  const weeklySha = offered(weeklyStable).sha256;
  const releaseCases = [
    release("the newest stable release for a weekly key", stableFor("VECTOR-WEEKLY-ACTIVE"), ok200(weeklyStable), valid, {
      error: null,
      release: offered(weeklyStable),
    }),
    release(
      "the newest beta release for a monthly key (its plan includes beta)",
      betaFor("VECTOR-MONTHLY-ENDS-SOON"),
      ok200(monthlyBeta),
      valid,
      { error: null, release: offered(monthlyBeta) },
    ),
    release(
      "the beta channel asked with a weekly key (its plan does not include beta)",
      betaFor("VECTOR-WEEKLY-ACTIVE"),
      ok200(await releaseAnswerFor(signer, "beta", { key: "VECTOR-WEEKLY-ACTIVE" })),
      valid,
      {
        error: "channel-not-allowed",
      },
    ),
    release("nothing published on the beta channel yet", betaFor("VECTOR-MONTHLY-ENDS-SOON"), ok200(noBetaYet), valid, {
      error: "no-release",
    }),
    release(
      "a signed REVOKED answer offers no release",
      stableFor("VECTOR-REVOKED"),
      ok200(await releaseAnswerFor(signer, "stable", { key: "VECTOR-REVOKED" })),
      { outcome: "denied", code: "REVOKED", offline: false },
      {
        error: "denied",
      },
    ),
    release(
      "a release answer with its sha256 edited",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      edited(weeklyStable, weeklySha, `${weeklySha.slice(0, -1)}1`),
      releaseTampered("signature"),
      { error: "tampered" },
    ),
    release(
      "a release answer with its download link edited",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      edited(weeklyStable, "a140/download", "a132/download"),
      releaseTampered("signature"),
      { error: "tampered" },
    ),
    release(
      "a release answer with its size edited",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      edited(weeklyStable, '"size":73400320', '"size":73400321'),
      releaseTampered("signature"),
      { error: "tampered" },
    ),
    release(
      "a genuine stable answer, with this call's nonce, to a beta request",
      betaFor("VECTOR-MONTHLY-ENDS-SOON"),
      ok200(await releaseAnswerFor(signer, "stable", { key: "VECTOR-MONTHLY-ENDS-SOON" })),
      releaseTampered("channel"),
      {
        error: "tampered",
      },
    ),
    release(
      "a genuine validation answer, with this call's nonce, passed off as a release answer",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      ok200(weekly),
      releaseTampered("channel"),
      { error: "tampered" },
    ),
    release(
      "a genuine release answer to another call (a replay)",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      ok200(await releaseAnswerFor(signer, "stable", { key: "VECTOR-WEEKLY-ACTIVE", nonce: OTHER_NONCE })),
      releaseTampered("nonce"),
      {
        error: "tampered",
      },
    ),
    release(
      "no network",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      { network: "unreachable" },
      { outcome: "offline", reason: "unreachable" },
      { error: "offline" },
    ),
    release(
      "rate limited (429)",
      stableFor("VECTOR-WEEKLY-ACTIVE"),
      { status: 429, body: '{"error":{"code":"RATE_LIMITED","message":"Too many requests; try again in a minute"}}' },
      { outcome: "offline", reason: "rate-limited" },
      {
        error: "offline",
      },
    ),
  ];

  // Deactivate: the bound PC released, refused while the allowance is spent, another PC's call, and
  // what an SDK must refuse. Made last: a release changes its key's row.
  await Promise.all(cases);
  const released = await deactivationFor(signer, "VECTOR-MOVING");
  const deactivation = (name: string, key: string, response: Parameters<typeof online>[2], expect: Expect) => ({
    ...online(name, request(key), response, now, expect),
    kind: "deactivation" as const,
  });
  const deactivationCases = [
    deactivation("the bound PC released (RELEASED)", "VECTOR-MOVING", ok200(released), {
      outcome: "valid",
      code: "RELEASED",
      offline: false,
    }),
    deactivation(
      "released a day after the last move (TOO_SOON)",
      "VECTOR-MOVED-RECENTLY",
      ok200(await deactivationFor(signer, "VECTOR-MOVED-RECENTLY")),
      { outcome: "denied", code: "TOO_SOON", offline: false },
    ),
    {
      ...deactivation(
        "asked by another PC than the bound one (HWID_MISMATCH)",
        "VECTOR-WEEKLY-ACTIVE",
        ok200(await deactivationFor(signer, "VECTOR-WEEKLY-ACTIVE", OTHER_HWID)),
        { outcome: "denied", code: "HWID_MISMATCH", offline: false },
      ),
      request: request("VECTOR-WEEKLY-ACTIVE", OTHER_HWID),
    },
    deactivation(
      "a RELEASED answer with its code edited",
      "VECTOR-MOVING",
      edited(released, '"released":true', '"released":false'),
      badSignature,
    ),
    deactivation(
      "a genuine validation answer, with this call's nonce, passed off as a release (not RELEASED)",
      "VECTOR-WEEKLY-ACTIVE",
      ok200(weekly),
      { outcome: "denied", code: "OTHER", offline: false },
    ),
    deactivation("no network", "VECTOR-MOVING", { network: "unreachable" }, { outcome: "offline", reason: "unreachable" }),
  ];

  return {
    description:
      "Conformance vectors for licence SDKs, generated by the server's own answer and signing code. Each case gives what the SDK sent or checks (request), what came back (online: response) or what it had stored (offline: stored), its clocks, and what it must conclude (expect).",
    publicKey: toBase64(hexBytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")),
    testOnlyPrivateKey: {
      warning: "TEST ONLY: RFC 8032's published test key. Never sign real answers with it.",
      seedHex: TEST_SEED,
      pkcs8Base64: toBase64(hexBytes(PKCS8_HEADER + TEST_SEED)),
    },
    rules: RULES,
    cases: await Promise.all(cases),
    releaseDescription:
      "POST /api/v1/releases/latest: the request also names a channel; the answer is judged as an online case, then its channel must be the one asked (tampered, reason channel, otherwise), then it offers a release or an error: no-release, channel-not-allowed (the channel's entitlement is not in licence.entitlements), or the licence's own outcome (denied, offline, tampered).",
    releaseCases,
    deactivationDescription:
      "POST /api/v1/licences/deactivate: the answer is judged as an online case (signature, nonce, key, hwid, freshness); then code RELEASED alone means the PC was released (outcome valid); any other signed code is a refusal (denied), OTHER for a code that is no deactivation's (a validation's VALID passed off as one).",
    deactivationCases,
  };
}

it("the conformance vectors are what the server signs today", async () => {
  const document = await vectors();
  // The published public key is the test seed's (a wrong constant here would make every case lie).
  expect((await signerOf(TEST_SEED)).publicKey).toBe(document.publicKey);
  await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot("../../sdk/vectors/licence-vectors.json");
});
