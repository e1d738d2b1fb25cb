// One download system with one rule (decision 082): a release of a product is served, from the
// hub's Download link and through the API's signed link alike, only to a member who holds a live
// licence for that product whose entitlements include what the release needs; staff only by the
// releases.manage capability. A link is bound to the licence it was issued for and re-checked.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contentDisposition } from "~/http/release-download.server";
import { signedDownloadLink } from "~/server/releases/release-links.server";
import { licenceSigner } from "~/server/licences/signing.server";
import { licences, releases, users } from "~/server/platform/db/schema.server";
import { boughtKey, createAccount, db, deliver, hwid, nextId, signIn, type TestAccount, unique } from "../helpers";
import { change, hex, type Offer, offerFor, published, send } from "./release-helpers";

const REFUSED = "Active subscription required to download this file";
const DAY = 86_400_000;

let admin: string;
let stable: Awaited<ReturnType<typeof published>>;
// Every release published here outranks the ones before it, so each test knows what is latest.
let major = 5000;
const nextVersion = () => `${++major}.0.0`;

beforeAll(async () => {
  admin = await signIn(await createAccount({ admin: true }), unique("ip"));
  stable = await published(admin, nextVersion());
}, 60_000);

interface Holder {
  account: TestAccount;
  cookie: string;
  key: string;
  orderId: number;
  lineId: number;
}

/** A member signed in, holding a key of `product` bought with their address. */
async function holder(variantTitle: "1 Week" | "30 Days" = "1 Week", product = "Vertex Rust"): Promise<Holder> {
  const account = await createAccount();
  const bought = await boughtKey(variantTitle, account.email, product);
  return { account, cookie: await signIn(account, unique("ip")), key: bought.key, orderId: bought.orderId, lineId: bought.lineId };
}

const fromHub = (id: string, cookie: string, headers: Record<string, string> = {}, method = "GET") =>
  send(`/dashboard/downloads/releases/${id}`, { method, cookie, headers: { Accept: "*/*", ...headers } });

const fromLink = (url: string, headers: Record<string, string> = {}, method = "GET") =>
  exports.default.fetch(new Request(url, { method, headers }));

/** A link from releases/latest for `key`'s licence (the PC it binds on first use). */
async function linkFor(key: string, channel?: string): Promise<Offer> {
  const offer = await offerFor(key, hwid(), channel);
  if (!offer) throw new Error(`no release offered to ${key}`);
  return offer;
}

type Stopped = "expired" | "refunded" | "revoked" | "banned" | "paused" | "account banned";

/** Puts the holder's licence into `state` the way the shop does it (a refund by Shopify's webhook). */
async function stop(member: Holder, state: Stopped) {
  const now = Date.now();
  const licence = eq(licences.key, member.key);
  if (state === "refunded") {
    await deliver("refunds/create", {
      id: nextId(),
      order_id: member.orderId,
      refund_line_items: [{ line_item_id: member.lineId, quantity: 1 }],
    });
  } else if (state === "expired") {
    await db
      .update(licences)
      .set({ activatedAt: now - 8 * DAY, expiresAt: now - 1000 })
      .where(licence);
  } else if (state === "revoked") {
    await db.update(licences).set({ revokedAt: now }).where(licence);
  } else if (state === "banned") {
    await db.update(licences).set({ bannedAt: now, banReason: "Cheating" }).where(licence);
  } else if (state === "paused") {
    await db.update(licences).set({ pausedAt: now }).where(licence);
  } else {
    await db.update(users).set({ bannedAt: now, banReason: "Chargeback" }).where(eq(users.id, member.account.id));
  }
}

describe("the one download rule, on the hub's link and the API's signed link", () => {
  it("refuses an account without a licence, on the link and on the page, saying what to buy", async () => {
    const cookie = await signIn(await createAccount(), unique("ip"));
    const refused = await fromHub(stable.id, cookie);
    expect(refused.status).toBe(403);
    const message = await refused.text();
    expect(message).toContain(REFUSED);
    expect(message).toContain("Needs a Vertex Rust licence: the Weekly, Monthly or Lifetime plan");
    expect((await fromHub(stable.id, cookie, {}, "HEAD")).status).toBe(403);

    const page = await (await send("/dashboard/downloads", { method: "GET", cookie, headers: { Accept: "text/html" } })).text();
    expect(page).toContain("No Active Subscription");
    expect(page).toContain("Requires Active Subscription");
    expect(page).toContain("Needs a Vertex Rust licence: the Weekly, Monthly or Lifetime plan");
    expect(page).not.toContain(`/dashboard/downloads/releases/${stable.id}`);
  });

  it("serves a live licence, bought and not yet activated, on both doors", async () => {
    const member = await holder();
    expect(
      (await db.select({ activatedAt: licences.activatedAt }).from(licences).where(eq(licences.key, member.key)).get())?.activatedAt,
    ).toBeNull();
    const hub = await fromHub(stable.id, member.cookie);
    expect(hub.status).toBe(200);
    expect(new Uint8Array(await hub.arrayBuffer())).toEqual(stable.bytes);
    const page = await (
      await send("/dashboard/downloads", { method: "GET", cookie: member.cookie, headers: { Accept: "text/html" } })
    ).text();
    expect(page).not.toContain("No Active Subscription");
    expect(page).toContain(`/dashboard/downloads/releases/${stable.id}`);
    expect((await fromLink((await linkFor(member.key)).url)).status).toBe(200);
  });

  for (const state of ["expired", "refunded", "revoked", "banned", "paused", "account banned"] as const) {
    it(`stops serving a licence once it is ${state}: the hub refuses, and a link issued before stops working`, async () => {
      const member = await holder();
      const offer = await linkFor(member.key);
      expect((await fromLink(offer.url)).status).toBe(200);
      expect((await fromHub(stable.id, member.cookie)).status).toBe(200);

      await stop(member, state);
      const link = await fromLink(offer.url);
      expect(link.status).toBe(403);
      expect(((await link.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringContaining(REFUSED),
      });
      expect((await fromLink(offer.url, {}, "HEAD")).status).toBe(403);

      const hub = await fromHub(stable.id, member.cookie);
      if (state === "account banned") {
        // A banned account's session no longer works: the hub sends it to sign in.
        expect(hub.status).toBe(302);
      } else {
        expect(hub.status).toBe(403);
        expect(await hub.text()).toContain(REFUSED);
        const page = await (
          await send("/dashboard/downloads", { method: "GET", cookie: member.cookie, headers: { Accept: "text/html" } })
        ).text();
        expect(page).toContain("No Active Subscription");
        expect(page).not.toContain(`/dashboard/downloads/releases/${stable.id}`);
      }
    });
  }

  it("stops a link whose licence is gone (its sale undone), and a link moved to another licence", async () => {
    const member = await holder();
    const other = await holder();
    const offer = await linkFor(member.key);
    const otherId = (await db.select({ id: licences.id }).from(licences).where(eq(licences.key, other.key)).get())!.id;
    const moved = offer.url.replace(/licence=\d+/, `licence=${otherId}`);
    expect(moved).not.toBe(offer.url);
    expect((await fromLink(moved)).status).toBe(403);
    await db.delete(licences).where(eq(licences.key, member.key));
    expect((await fromLink(offer.url)).status).toBe(403);
  });

  it("refuses a licence of another product, on the hub and on a genuine link signed for it", async () => {
    const spoofer = await holder("30 Days", "Vertex HWID Spoofer");
    const refused = await fromHub(stable.id, spoofer.cookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("Needs a Vertex Rust licence");
    // The program of another product is offered nothing of this one.
    expect(await offerFor(spoofer.key, hwid())).toBeNull();
    // Even a link the shop signed for that licence (it never issues one) is checked against the rule.
    const signer = await licenceSigner(env.LICENCE_SIGNING_KEY);
    if (!signer.ok) throw new Error(signer.problem.message);
    const licenceId = (await db.select({ id: licences.id }).from(licences).where(eq(licences.key, spoofer.key)).get())!.id;
    const { url } = await signedDownloadLink(signer.value, "https://shop.test", stable.id, licenceId, Date.now());
    expect((await fromLink(url)).status).toBe(403);
  });

  it("gives a beta release only to a licence with Beta Access, on both doors", async () => {
    const beta = await published(admin, `${nextVersion()}-beta.1`, { channel: "beta" });
    const weekly = await holder("1 Week");
    const monthly = await holder("30 Days");
    const refused = await fromHub(beta.id, weekly.cookie);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("Needs Beta Access, included in the Monthly and Lifetime plans");
    expect(await offerFor(weekly.key, hwid(), "beta")).toBeNull();
    expect((await fromHub(beta.id, monthly.cookie)).status).toBe(200);
    const offer = await linkFor(monthly.key, "beta");
    expect(offer.sha256).toBe(await hex(beta.bytes));
    expect((await fromLink(offer.url)).status).toBe(200);
    // Beta Access taken off the licence: the link issued before stops working.
    await db
      .update(licences)
      .set({ entitlements: ["configs"] })
      .where(eq(licences.key, monthly.key));
    expect((await fromLink(offer.url)).status).toBe(403);
  });

  it("lets staff who manage releases have unpublished ones; a support account gets nothing by being staff", async () => {
    const ready = await published(admin, nextVersion(), { publish: false });
    expect((await fromHub(ready.id, admin)).status).toBe(200);
    const page = await (await send("/dashboard/downloads", { method: "GET", cookie: admin, headers: { Accept: "text/html" } })).text();
    expect(page).not.toContain("No Active Subscription");
    expect(page).toContain(`/dashboard/downloads/releases/${stable.id}`);

    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    const refused = await fromHub(stable.id, support);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(REFUSED);
    expect((await fromHub(ready.id, support)).status).toBe(404);
    const supportPage = await (
      await send("/dashboard/downloads", { method: "GET", cookie: support, headers: { Accept: "text/html" } })
    ).text();
    expect(supportPage).toContain("No Active Subscription");
    // A member with a live licence never sees what is not published yet.
    expect((await fromHub(ready.id, (await holder("30 Days")).cookie)).status).toBe(404);
    expect((await change("discard", ready.id, admin)).status).toBe(200);
  });

  it("answers Range (206 and 416) and HEAD with the checksum on both doors", async () => {
    const release = await published(admin, nextVersion());
    const member = await holder();
    const sha = await hex(release.bytes);
    const size = release.bytes.byteLength;
    const offer = await linkFor(member.key);
    expect(offer.sha256).toBe(sha);
    const doors = [
      (headers: Record<string, string>, method?: string) => fromHub(release.id, member.cookie, headers, method),
      (headers: Record<string, string>, method?: string) => fromLink(offer.url, headers, method),
    ];
    for (const door of doors) {
      const part = await door({ Range: "bytes=10-" });
      expect([part.status, part.headers.get("Content-Range"), part.headers.get("X-Checksum-SHA256")]).toEqual([
        206,
        `bytes 10-${size - 1}/${size}`,
        sha,
      ]);
      expect(new Uint8Array(await part.arrayBuffer())).toEqual(release.bytes.slice(10));
      const beyond = await door({ Range: `bytes=${size}-` });
      expect([beyond.status, beyond.headers.get("Content-Range")]).toEqual([416, `bytes */${size}`]);
      const head = await door({}, "HEAD");
      expect([
        head.status,
        head.headers.get("Content-Length"),
        head.headers.get("X-Checksum-SHA256"),
        head.headers.get("Accept-Ranges"),
      ]).toEqual([200, String(size), sha, "bytes"]);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
  });
});

describe("a file moved from the old downloads list", () => {
  it("is served and offered with a SHA-256 computed from the stored object on first use, then kept", async () => {
    // The shape the migration leaves: a published stable release without a checksum, its size
    // from the old row (unknown here), its object where the old file was stored.
    const id = crypto.randomUUID();
    const body = "Vertex Loader (moved)\n".repeat(40);
    const bytes = new TextEncoder().encode(body);
    const objectKey = `files/${id}/Vertex Loader.zip`;
    await env.DOWNLOADS.put(objectKey, body, { httpMetadata: { contentType: "application/zip" } });
    const version = `${nextVersion()}`;
    await db.insert(releases).values({
      id,
      product: "Vertex Rust",
      version,
      channel: "stable",
      notes: "Run it as administrator.",
      fileName: "Vertex Loader.zip",
      objectKey,
      contentType: "application/zip",
      size: 0,
      sha256: null,
      state: "published",
      createdAt: Date.now() - DAY,
      publishedAt: Date.now() - DAY,
    });
    const sha = await hex(bytes);
    const member = await holder();

    const hub = await fromHub(id, member.cookie, { Range: "bytes=5-" });
    expect([hub.status, hub.headers.get("X-Checksum-SHA256"), hub.headers.get("Content-Range")]).toEqual([
      206,
      sha,
      `bytes 5-${bytes.byteLength - 1}/${bytes.byteLength}`,
    ]);
    expect(await hub.text()).toBe(body.slice(5));
    expect(await db.select({ sha256: releases.sha256, size: releases.size }).from(releases).where(eq(releases.id, id)).get()).toEqual({
      sha256: sha,
      size: bytes.byteLength,
    });

    // Offered to the program with the same checksum, and served through its link.
    await db.update(releases).set({ sha256: null, size: 0 }).where(eq(releases.id, id));
    const offer = await linkFor(member.key);
    expect([offer.version, offer.sha256, offer.size]).toEqual([version, sha, bytes.byteLength]);
    const file = await fromLink(offer.url, {}, "HEAD");
    expect([file.status, file.headers.get("X-Checksum-SHA256")]).toEqual([200, sha]);

    // Opening the downloads page reads no file (anyone signed in opens it, as often as they like):
    // until the first download the page says when the checksum comes, then it shows it.
    await db.update(releases).set({ sha256: null, size: 0 }).where(eq(releases.id, id));
    const downloadsPage = async () =>
      (await send("/dashboard/downloads", { method: "GET", cookie: member.cookie, headers: { Accept: "text/html" } })).text();
    expect(await downloadsPage()).toContain("worked out at the first download");
    expect((await db.select({ sha256: releases.sha256 }).from(releases).where(eq(releases.id, id)).get())?.sha256).toBeNull();
    expect((await fromHub(id, member.cookie)).status).toBe(200);
    expect(await downloadsPage()).toContain(sha);
  });
});

it("quotes unsafe file names in Content-Disposition", () => {
  expect(contentDisposition('a"b\\c\u00e9.zip')).toBe(`attachment; filename="a_b_c_.zip"; filename*=UTF-8''a%22b%5Cc%C3%A9.zip`);
});
