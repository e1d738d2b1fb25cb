// The TypeScript client as a program uses it, against a shop played by a fetch that signs answers
// with the vectors' published test key: the lease's own reason when the shop cannot be reached,
// the newest trusted time kept across a restart, the heartbeat (stopped from its own callback),
// and updates compared with the program's own version.
import { describe, expect, it } from "vitest";
import vectors from "../../vectors/licence-vectors.json";
import { type CheckResult, LicenceClient, type LeaseStore, memoryLeaseStore } from "../src/licence-client";

const HOUR = 3600_000;
const KEY = "TS-CLIENT-KEY";
const HWID = "TS-CLIENT-HWID-0123456789";

const signingKey = crypto.subtle.importKey(
  "pkcs8",
  Uint8Array.from(atob(vectors.testOnlyPrivateKey.pkcs8Base64), (c) => c.charCodeAt(0)),
  { name: "Ed25519" },
  false,
  ["sign"],
);

/** The shop: each call answers with the next of `codes` ("down": no answer), issued `issuedAgoMs` before now. */
function shop(codes: (string | { code: string; issuedAgoMs?: number; release?: string })[]) {
  const calls: string[] = [];
  const fetch = async (request: Request) => {
    const asked = (await request.json()) as { key: string; hwid: string; nonce: string; channel?: string };
    calls.push(new URL(request.url).pathname);
    const next = codes.length > 1 ? codes.shift()! : codes[0]!;
    const { code, issuedAgoMs = 0, release } = typeof next === "string" ? { code: next } : next;
    if (code === "down") throw new TypeError("fetch failed");
    const issuedAt = Date.now() - issuedAgoMs;
    const answer = {
      valid: code === "VALID",
      code,
      key: asked.key,
      hwid: asked.hwid,
      nonce: asked.nonce,
      issuedAt: new Date(issuedAt).toISOString(),
      ttl: 600,
      licence: { product: "Vertex Rust", plan: "weekly", activatedAt: null, expiresAt: null },
      lease: code === "VALID" ? { until: new Date(issuedAt + 72 * HOUR).toISOString() } : null,
      ...(asked.channel
        ? {
            channel: asked.channel,
            release: release
              ? {
                  version: release,
                  channel: asked.channel,
                  notes: "",
                  fileName: "Vertex.exe",
                  size: 1,
                  sha256: "0".repeat(64),
                  publishedAt: new Date().toISOString(),
                  url: "https://shop.test/file",
                  urlExpiresAt: new Date().toISOString(),
                }
              : null,
          }
        : {}),
    };
    const body = new TextEncoder().encode(JSON.stringify(answer));
    const signature = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, await signingKey, body));
    return new Response(body, { headers: { "Licence-Signature": btoa(String.fromCharCode(...signature)) } });
  };
  return { fetch, calls };
}

const client = (fetch: (request: Request) => Promise<Response>, store: LeaseStore = memoryLeaseStore(), version?: string) =>
  new LicenceClient({ baseUrl: "https://shop.test", publicKey: vectors.publicKey, store, fetch, ...(version ? { version } : {}) });

describe("the TypeScript client offline", () => {
  it("gives the lease's own reason when the shop cannot be reached, and the network's beside it", async () => {
    const result = await client(shop(["down"]).fetch).check(KEY, HWID);
    expect(result).toMatchObject({ outcome: "offline", reason: "no-lease", network: "unreachable" });

    const store = memoryLeaseStore();
    await client(shop([{ code: "VALID", issuedAgoMs: 73 * HOUR }]).fetch, store).check(KEY, HWID);
    expect(await client(shop(["down"]).fetch, store).check(KEY, HWID)).toMatchObject({
      outcome: "offline",
      reason: "lease-expired",
      network: "unreachable",
    });
  });

  it("refuses an older lease put back after a newer answer was seen, in a later run too", async () => {
    const store = memoryLeaseStore();
    const first = client(
      shop([
        { code: "VALID", issuedAgoMs: 2 * HOUR },
        { code: "VALID", issuedAgoMs: HOUR },
      ]).fetch,
      store,
    );
    expect((await first.check(KEY, HWID)).outcome).toBe("valid");
    const older = await store.read();
    expect((await first.check(KEY, HWID)).outcome).toBe("valid");
    await store.write(older!);

    // The program starts again with the shop out of reach: the lease put back is older than the newest answer.
    expect(await client(shop(["down"]).fetch, store).check(KEY, HWID)).toMatchObject({ outcome: "tampered", reason: "stale" });
  });
});

describe("the TypeScript client's heartbeat", () => {
  it("calls back on a change and can be stopped from its own callback: no check after that", async () => {
    const { fetch, calls } = shop(["VALID", "REVOKED"]);
    const licences = client(fetch);
    expect((await licences.check(KEY, HWID)).outcome).toBe("valid");
    const changed = await new Promise<CheckResult>((resolve) => {
      const beat = licences.startHeartbeat(
        KEY,
        HWID,
        (result) => {
          beat.stop();
          resolve(result);
        },
        { intervalSeconds: 5 },
      );
    });
    expect(changed).toMatchObject({ outcome: "denied", code: "REVOKED" });
    const made = calls.length;
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(calls).toHaveLength(made);
  }, 20_000);
});

describe("the TypeScript client's updates", () => {
  it("says up to date unless the shop's newest is newer than the program's own version", async () => {
    const same = await client(shop([{ code: "VALID", release: "1.4.0" }]).fetch, undefined, "1.4.0").latestRelease(KEY, HWID);
    expect(same).toMatchObject({ release: null, error: "up-to-date", message: "Version 1.4.0 is the newest: this program is up to date." });
    const older = await client(shop([{ code: "VALID", release: "1.10.0" }]).fetch, undefined, "1.9.2").latestRelease(KEY, HWID);
    expect(older).toMatchObject({ error: null, release: { version: "1.10.0" } });
    const beta = await client(shop([{ code: "VALID", release: "2.0.0-beta.2" }]).fetch, undefined, "2.0.0").latestRelease(KEY, HWID);
    expect(beta.error).toBe("up-to-date");
  });
});
