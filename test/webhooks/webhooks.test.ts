// Webhooks out through the Worker: an admin registers an endpoint on the Webhooks page, and the
// events the shop records reach it from the job queue, signed so that the Standard Webhooks
// verification (written here from the specification, not taken from the shop's code) accepts them
// and refuses a changed body or an old timestamp. A failing endpoint is retried on the published
// schedule, then disabled with the admins told; private addresses are refused; only admins may
// manage any of it. The receiving side is a stand-in for the network: the Worker's fetch, answered
// here (including the DNS-over-HTTPS lookups delivery makes first).
import { env } from "cloudflare:workers";
import { and, desc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  auditLog,
  licences,
  productCodes,
  resellerAccounts,
  resellerKeys,
  webhookAttempts,
  webhookEndpoints,
  webhookMessages,
} from "~/server/platform/db/schema.server";
import { deliverWebhookMessage } from "~/server/webhooks/delivery.server";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { WEBHOOK_EVENTS } from "~/lib/webhooks";
import { boughtKey, call, createAccount, db, deliver, hwid, latestMail, nextId, signIn, unique, validate } from "../helpers";

const PAGE = "/dashboard/webhooks";
const DOH = "https://cloudflare-dns.com/dns-query";

interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The network as the Worker's fetch sees it: what each name resolves to, what each endpoint answers. */
const network = {
  received: [] as Received[],
  addresses: new Map<string, string>(),
  status: new Map<string, number>(),
};

beforeEach(() => {
  network.received = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (`${url.origin}${url.pathname}` === DOH) {
      const name = url.searchParams.get("name")!;
      const address = network.addresses.get(name) ?? "93.184.215.14";
      const v6 = url.searchParams.get("type") === "AAAA";
      return Response.json({ Status: 0, Answer: v6 ? [] : [{ name, type: 1, TTL: 60, data: address }] });
    }
    if (url.hostname.endsWith(".example.com")) {
      network.received.push({ url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() });
      const status = network.status.get(url.hostname) ?? 200;
      return new Response(status === 200 ? "ok, thanks" : "down for maintenance", { status });
    }
    return realFetch(input, init);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

// Standard Webhooks verification, from the specification: the secret's bytes are the base64 after
// "whsec_"; the signed content is `${id}.${timestamp}.${body}`; the header lists space-separated
// "v1,<base64 HMAC-SHA256>" signatures, any of which may match; a timestamp more than five minutes
// from now is refused.
async function verify(secret: string, headers: Record<string, string>, body: string, nowSeconds = Math.floor(Date.now() / 1000)) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 5 * 60) return false;
  const keyBytes = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const signature of signatures.split(" ")) {
    const [version, value] = signature.split(",");
    if (version !== "v1" || !value) continue;
    const mac = Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
    if (await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode(`${id}.${timestamp}.${body}`))) return true;
  }
  return false;
}

const admin = async () => {
  const account = await createAccount({ role: "admin" });
  return { account, cookie: await signIn(account, unique("ip")) };
};

/** An endpoint an admin registered through the page, with the secret the shop keeps for it. */
async function registered(cookie: string, events: string[], host = `${unique("hooks")}.example.com`) {
  const url = `https://${host}/shop-events`;
  const form: Record<string, string> = { intent: "create", url, description: "Our bot", events: "" };
  for (const event of events) form[`event:${event}`] = "on";
  const response = await call(PAGE, { form, cookie });
  expect(response.status).toBe(200);
  const endpoint = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.url, url)).get();
  expect(endpoint?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  // Shown once, in the answer to the form that made it.
  expect(await response.text()).toContain(endpoint!.secret);
  return { ...endpoint!, host };
}

/** The deliveries the endpoint at `host` received so far, once at least `count` have. */
async function receivedBy(host: string, count = 1) {
  await vi.waitFor(
    () => {
      if (network.received.filter((r) => new URL(r.url).hostname === host).length < count) throw new Error(`${host} is waiting`);
    },
    { timeout: 15_000, interval: 25 },
  );
  return network.received
    .filter((r) => new URL(r.url).hostname === host)
    .map((r) => ({
      ...r,
      json: JSON.parse(r.body) as { type: string; timestamp: string; data: { order?: { id: string } } & Record<string, unknown> },
    }));
}

const messagesOf = (endpointId: string) =>
  db.select().from(webhookMessages).where(eq(webhookMessages.endpointId, endpointId)).orderBy(desc(webhookMessages.createdAt)).all();

describe("signed deliveries", () => {
  it("carry the Standard Webhooks headers and body, verify with the endpoint's secret, and refuse a changed body or an old timestamp", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["order.paid"]);
    expect((await call(PAGE, { form: { intent: "test", endpointId: endpoint.id }, cookie })).status).toBe(200);
    const [delivery] = await receivedBy(endpoint.host);
    expect(delivery!.headers["content-type"]).toBe("application/json");
    expect(delivery!.headers["webhook-id"]).toMatch(/^msg_/);
    expect(delivery!.json).toMatchObject({ type: "webhook.test", data: { endpointId: endpoint.id } });
    expect(new Date(delivery!.json.timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);

    expect(await verify(endpoint.secret, delivery!.headers, delivery!.body)).toBe(true);
    // A body changed on the way, another endpoint's secret, a replay six minutes later: refused.
    expect(await verify(endpoint.secret, delivery!.headers, delivery!.body.replace("webhook.test", "order.paid"))).toBe(false);
    const other = await registered(cookie, ["order.paid"]);
    expect(await verify(other.secret, delivery!.headers, delivery!.body)).toBe(false);
    const sentAt = Number(delivery!.headers["webhook-timestamp"]);
    expect(await verify(endpoint.secret, delivery!.headers, delivery!.body, sentAt + 6 * 60)).toBe(false);
    expect(await verify(endpoint.secret, delivery!.headers, delivery!.body, sentAt + 4 * 60)).toBe(true);
  });

  it("after a rotation are signed with the new secret and, for a day, the old one too; Redeliver sends the same message again", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["order.paid"]);
    expect((await call(PAGE, { form: { intent: "rotate", endpointId: endpoint.id }, cookie })).status).toBe(200);
    const rotated = (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).get())!;
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect((await call(PAGE, { form: { intent: "test", endpointId: endpoint.id }, cookie })).status).toBe(200);
    const [first] = await receivedBy(endpoint.host);
    expect(first!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(await verify(rotated.secret, first!.headers, first!.body)).toBe(true);
    expect(await verify(endpoint.secret, first!.headers, first!.body)).toBe(true);

    const [message] = await messagesOf(endpoint.id);
    await vi.waitFor(async () => expect((await messagesOf(endpoint.id))[0]!.state).toBe("delivered"));
    const again = await call(PAGE, { form: { intent: "redeliver", endpointId: endpoint.id, messageId: message!.id }, cookie });
    expect(again.status).toBe(200);
    const [, second] = await receivedBy(endpoint.host, 2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    expect(await verify(rotated.secret, second!.headers, second!.body)).toBe(true);
    const audited = await db.select().from(auditLog).where(eq(auditLog.subject, endpoint.id)).all();
    expect(audited.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["webhook.endpoint-create", "webhook.secret-rotate", "webhook.test-event", "webhook.redeliver"]),
    );
    // The secret never goes into the audit log.
    expect(JSON.stringify(audited)).not.toContain("whsec_");
  });
});

describe("events", () => {
  it("an order paid and then refunded sends order.paid and order.refunded, each once however often Shopify sends them", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["order.paid", "order.refunded", "licence.revoked"]);
    const { order, key } = await boughtKey("30 Days");
    const [paid] = await receivedBy(endpoint.host);
    expect(paid!.json).toMatchObject({
      type: "order.paid",
      data: { order: { id: `shopify:${order.id}`, source: "shopify", email: order.email, total: "29.99", currency: "USD" } },
    });
    await deliver("orders/paid", order);
    const refund = { id: nextId(), order_id: order.id, refund_line_items: [{ line_item_id: order.line_items[0]!.id, quantity: 1 }] };
    await deliver("refunds/create", refund);
    await deliver("refunds/create", refund);
    const all = (await receivedBy(endpoint.host, 3)).filter((d) => d.json.data.order?.id === `shopify:${order.id}`);
    const types = all.map((delivery) => delivery.json.type).sort();
    expect(types).toEqual(["licence.revoked", "order.paid", "order.refunded"]);
    expect(all.find((d) => d.json.type === "order.refunded")!.json.data).toMatchObject({
      order: { id: `shopify:${order.id}` },
      refund: { id: String(refund.id) },
      keysRevoked: [key],
    });
    expect(all.find((d) => d.json.type === "licence.revoked")!.json.data).toMatchObject({ licence: { key }, reason: "refunded" });
    const ofThisOrder = (await messagesOf(endpoint.id)).filter((m) => m.body.includes(`"shopify:${order.id}"`));
    expect(ofThisOrder).toHaveLength(3);
  });

  it("a licence banned by staff sends licence.banned, and an endpoint that did not choose it gets nothing", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["licence.banned"]);
    const bystander = await registered(cookie, ["review.posted"]);
    const { key } = await boughtKey("30 Days");
    const licence = (await db.select().from(licences).where(eq(licences.key, key)).get())!;
    const banned = await call("/dashboard/licences", {
      form: { intent: "ban-key", licenceId: String(licence.id), reason: "Cheating" },
      cookie,
    });
    expect(banned.status).toBe(200);
    const [delivery] = await receivedBy(endpoint.host);
    expect(delivery!.json).toMatchObject({ type: "licence.banned", data: { licence: { id: licence.id, key }, reason: "Cheating" } });
    expect(await messagesOf(bystander.id)).toEqual([]);
  });

  it("a review posted sends review.posted", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["review.posted"]);
    const account = await createAccount();
    const { key } = await boughtKey("30 Days", account.email);
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json.valid).toBe(true);
    const session = await signIn(account, unique("ip"));
    const posted = await call("/api/reviews", {
      form: { intent: "save", product: "vertex-rust", rating: "4", body: "Solid tool, updates arrive quickly." },
      cookie: `${session}; __Host-test-clock=2`,
    });
    expect(posted.status).toBeLessThan(400);
    const [delivery] = await receivedBy(endpoint.host);
    expect(delivery!.json).toMatchObject({
      type: "review.posted",
      data: { review: { rating: 4, body: "Solid tool, updates arrive quickly.", product: { handle: "vertex-rust" } } },
    });
  });
});

describe("licence and dispute events", () => {
  it("a sale creates a licence and its first check activates it: licence.created, then licence.activated", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["licence.created", "licence.activated"]);
    const { key } = await boughtKey("30 Days");
    const [created] = await receivedBy(endpoint.host);
    expect(created!.json).toMatchObject({ type: "licence.created", data: { licence: { key, plan: "monthly", activatedAt: null } } });
    const pc = hwid();
    expect((await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json.valid).toBe(true);
    // A second check of the same PC activates nothing more.
    expect((await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json.valid).toBe(true);
    const [, activated] = await receivedBy(endpoint.host, 2);
    expect(activated!.json).toMatchObject({ type: "licence.activated", data: { licence: { key, boundToPc: true } } });
    expect(activated!.json.data.licence).toMatchObject({ activatedAt: expect.any(String), expiresAt: expect.any(String) });
    expect(await messagesOf(endpoint.id)).toHaveLength(2);
  });

  it("a dispute opened then lost: dispute.opened and licence.suspended, then dispute.closed and licence.revoked, each once", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["dispute.opened", "dispute.closed", "licence.suspended", "licence.revoked"]);
    const { key, order } = await boughtKey("30 Days");
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json.valid).toBe(true);
    const opened = {
      id: nextId(),
      order_id: order.id,
      type: "chargeback",
      amount: "29.99",
      currency: "USD",
      reason: "fraudulent",
      status: "needs_response",
      evidence_due_by: "2030-01-15T19:00:00-05:00",
      initiated_at: "2029-12-31T19:00:00-05:00",
    };
    await deliver("disputes/create", opened);
    await deliver("disputes/create", opened);
    const first = await receivedBy(endpoint.host, 2);
    expect(first.map((d) => d.json.type).sort()).toEqual(["dispute.opened", "licence.suspended"]);
    expect(first.find((d) => d.json.type === "dispute.opened")!.json.data).toMatchObject({
      dispute: { id: String(opened.id), outcome: "open", order: { id: `shopify:${order.id}` } },
    });
    expect(first.find((d) => d.json.type === "licence.suspended")!.json.data).toMatchObject({ licence: { key }, reason: "dispute" });
    await deliver("disputes/update", { ...opened, status: "lost" });
    const all = await receivedBy(endpoint.host, 4);
    expect(all.map((d) => d.json.type).sort()).toEqual(["dispute.closed", "dispute.opened", "licence.revoked", "licence.suspended"]);
    expect(all.find((d) => d.json.type === "dispute.closed")!.json.data).toMatchObject({ dispute: { outcome: "lost" } });
    expect(all.find((d) => d.json.type === "licence.revoked")!.json.data).toMatchObject({ licence: { key }, reason: "dispute-lost" });
    expect(await messagesOf(endpoint.id)).toHaveLength(4);
  });

  it("a licence whose time ran out is announced by the cron's expiry sweep, once", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["licence.expired"]);
    const { key } = await boughtKey("1 Week");
    expect((await validate({ key, hwid: hwid(), nonce: crypto.randomUUID() })).json.valid).toBe(true);
    const licence = (await db.select().from(licences).where(eq(licences.key, key)).get())!;
    const sweep = (now: number) => runScheduledJobs(env, now);
    await sweep(licence.expiresAt! - 60_000);
    expect(await messagesOf(endpoint.id)).toEqual([]);
    await sweep(licence.expiresAt! + 5 * 60_000);
    await sweep(licence.expiresAt! + 10 * 60_000);
    const [delivery] = await receivedBy(endpoint.host);
    expect(delivery!.json).toMatchObject({ type: "licence.expired", data: { licence: { key, plan: "weekly" } } });
    expect(await messagesOf(endpoint.id)).toHaveLength(1);
  });
});

describe("licences stopped by any path", () => {
  it("a reseller's purchase sends licence.created for each key it bought", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["licence.created"]);
    const buyer = await createAccount();
    const resellerCookie = await signIn(buyer, unique("ip"));
    await call("/dashboard/resell", { cookie: resellerCookie }); // the first visit opens the reseller account
    await db.update(resellerAccounts).set({ balanceCents: 100_000 }).where(eq(resellerAccounts.userId, buyer.id));
    const generated = await call("/dashboard/resell", {
      form: { intent: "generate", quantity: "5", keyType: "weekly" },
      cookie: resellerCookie,
    });
    expect(generated.status).toBe(200);
    const bought = await db.select({ key: resellerKeys.keyCode }).from(resellerKeys).where(eq(resellerKeys.userId, buyer.id));
    expect(bought).toHaveLength(5);
    const deliveries = await receivedBy(endpoint.host, 5);
    expect(deliveries.map((d) => d.json.type)).toEqual(Array(5).fill("licence.created"));
    expect(deliveries.map((d) => (d.json.data.licence as { key: string }).key).sort()).toEqual(bought.map((row) => row.key).sort());
  });

  it("staff's revoke on an order's page and a pause reach receivers through the cron's sweep, each once; a ban is not sent twice", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["licence.revoked", "licence.suspended", "licence.banned"]);
    const [revoked, paused, banned] = [await boughtKey("30 Days"), await boughtKey("30 Days"), await boughtKey("30 Days")];
    const licenceOf = async (key: string) => (await db.select().from(licences).where(eq(licences.key, key)).get())!;
    const code = await db.select({ id: productCodes.id }).from(productCodes).where(eq(productCodes.code, revoked.key)).get();
    const revoking = await call(`/dashboard/orders/shopify/${revoked.orderId}`, {
      form: { intent: "revoke", key: `c${code!.id}`, reason: "Chargeback" },
      cookie,
    });
    expect(revoking.status).toBe(200);
    const pausing = await call("/dashboard/licences", {
      form: { intent: "pause", licenceId: String((await licenceOf(paused.key)).id), reason: "Under review" },
      cookie,
    });
    expect(pausing.status).toBe(200);
    const banning = await call("/dashboard/licences", {
      form: { intent: "ban-key", licenceId: String((await licenceOf(banned.key)).id), reason: "Cheating" },
      cookie,
    });
    expect(banning.status).toBe(200);
    // The ban is announced at once; the revoke and the pause wait for the sweep.
    await receivedBy(endpoint.host, 1);
    const sweep = () => runScheduledJobs(env, Date.now() + 60_000);
    await sweep();
    await sweep();
    const deliveries = await receivedBy(endpoint.host, 3);
    const about = (key: string) => deliveries.filter((d) => (d.json.data.licence as { key: string }).key === key).map((d) => d.json);
    expect(about(revoked.key)).toEqual([
      expect.objectContaining({ type: "licence.revoked", data: expect.objectContaining({ reason: "revoked" }) }),
    ]);
    expect(about(paused.key)).toEqual([
      expect.objectContaining({ type: "licence.suspended", data: expect.objectContaining({ reason: "paused" }) }),
    ]);
    expect(about(banned.key)).toEqual([
      expect.objectContaining({ type: "licence.banned", data: expect.objectContaining({ reason: "Cheating" }) }),
    ]);
    expect(await messagesOf(endpoint.id)).toHaveLength(3);
  });
});

describe("a failing endpoint", () => {
  it("is retried on the published schedule, with the same webhook-id, then disabled after a day and the admins told", async () => {
    const { account, cookie } = await admin();
    const host = `${unique("down")}.example.com`;
    network.status.set(host, 503);
    const endpoint = await registered(cookie, ["order.paid"], host);
    expect((await call(PAGE, { form: { intent: "test", endpointId: endpoint.id }, cookie })).status).toBe(200);
    await receivedBy(host);
    const [message] = await messagesOf(endpoint.id);
    await vi.waitFor(async () => expect((await messagesOf(endpoint.id))[0]!.attempts).toBe(1));

    // Each retry is run as the queue would run it when it falls due: no waiting here.
    const deps = { db, mail: env, waitUntil: () => {}, resolver: env.WEBHOOK_DNS_URL, queue: env.JOB_QUEUE };
    for (let attempt = 2; attempt <= 8; attempt++) {
      const due = (await db.select().from(webhookMessages).where(eq(webhookMessages.id, message!.id)).get())!;
      expect(due.state).toBe("pending");
      // Not a moment early.
      expect(await deliverWebhookMessage(deps, message!.id, due.nextAttemptAt! - 1000)).toBe("skipped");
      expect(await deliverWebhookMessage(deps, message!.id, due.nextAttemptAt!)).toBe(attempt === 8 ? "failed" : "retry");
      const current = (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).get())!;
      expect(current.state).toBe(attempt === 8 ? "disabled" : "enabled");
    }
    const attempts = await db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.messageId, message!.id))
      .orderBy(webhookAttempts.id)
      .all();
    expect(attempts).toHaveLength(8);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    const [s, m, h] = [1000, 60_000, 3_600_000];
    expect(gaps).toEqual([5 * s, 5 * m, 30 * m, 2 * h, 5 * h, 10 * h, 10 * h]);
    expect(new Set(attempts.map((a) => a.requestHeaders["webhook-id"]))).toEqual(new Set([message!.id]));
    expect(attempts.every((a) => a.status === 503 && a.response === "down for maintenance")).toBe(true);

    const disabled = (await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).get())!;
    expect(disabled).toMatchObject({ state: "disabled", disabledReason: "failing" });
    expect((await db.select().from(webhookMessages).where(eq(webhookMessages.id, message!.id)).get())!.state).toBe("failed");
    expect(await latestMail(account.email, "Webhook endpoint disabled")).toBeTruthy();
    const page = (await (await call(PAGE, { cookie })).text()).replace(/<!-- -->/g, "");
    expect(page).toContain("Disabled: failing");
    // A disabled endpoint is sent no new events.
    await boughtKey("30 Days");
    expect(await messagesOf(endpoint.id)).toHaveLength(1);
  });
});

describe("addresses", () => {
  it("private, loopback, link-local and plain-HTTP endpoints are refused when registered", async () => {
    const { cookie } = await admin();
    const refused = [
      "http://hooks.example.com/in",
      "https://127.0.0.1/in",
      "https://2130706433/in",
      "https://0x7f.1/in",
      "https://10.1.2.3/in",
      "https://172.20.0.1/in",
      "https://192.168.1.10/in",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/in",
      "https://[::ffff:127.0.0.1]/in",
      "https://[fd00::1]/in",
      "https://[fe80::1]/in",
      "https://[::127.0.0.1]/in",
      "https://[::ffff:0:127.0.0.1]/in",
      "https://[2002:7f00:1::]/in",
      "https://localhost./in",
      "https://printer.local./in",
      "https://localhost/in",
      "https://metadata.google.internal/in",
      "https://printer.local/in",
      "https://user:pass@hooks.example.com/in",
    ];
    for (const url of refused) {
      const form = { intent: "create", url, description: "", events: "", "event:order.paid": "on" };
      const response = await call(PAGE, { form, cookie });
      expect(response.status, url).toBe(400);
      expect(await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.url, url)).get(), url).toBeUndefined();
    }
    const none = await call(PAGE, { form: { intent: "create", url: "https://ok.example.com/in", description: "", events: "" }, cookie });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("Choose at least one event");
  });

  it("a public name that resolves to a private address is not sent to", async () => {
    const { cookie } = await admin();
    const host = `${unique("rebind")}.example.com`;
    const endpoint = await registered(cookie, ["order.paid"], host);
    network.addresses.set(host, "10.0.0.5");
    expect((await call(PAGE, { form: { intent: "test", endpointId: endpoint.id }, cookie })).status).toBe(200);
    await vi.waitFor(
      async () => {
        const [attempt] = await db
          .select()
          .from(webhookAttempts)
          .innerJoin(webhookMessages, eq(webhookMessages.id, webhookAttempts.messageId))
          .where(and(eq(webhookMessages.endpointId, endpoint.id)))
          .all();
        expect(attempt?.webhook_attempts.error).toContain("private address (10.0.0.5)");
      },
      { timeout: 15_000 },
    );
    expect(network.received.filter((r) => new URL(r.url).hostname === host)).toEqual([]);
  });
});

describe("who may", () => {
  it("only admins open the page or change anything on it", async () => {
    const { cookie } = await admin();
    const endpoint = await registered(cookie, ["order.paid"]);
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    const member = await signIn(await createAccount(), unique("ip"));
    for (const who of [support, member]) {
      expect((await call(PAGE, { cookie: who })).status).toBe(403);
      const forms: Record<string, string>[] = [
        { intent: "create", url: "https://x.example.com/in", events: "", "event:order.paid": "on" },
        { intent: "reveal", endpointId: endpoint.id },
        { intent: "delete", endpointId: endpoint.id },
      ];
      for (const form of forms) {
        const response = await call(PAGE, { form, cookie: who });
        expect(response.status).toBe(403);
        expect(await response.text()).not.toContain(endpoint.secret);
      }
    }
    expect((await call(PAGE)).status).toBe(302);
    expect(await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).get()).toBeTruthy();
  });
});

interface EventSchema {
  required: string[];
  properties: { type: { const: string }; data: { type?: string; $ref?: string } };
}

describe("the OpenAPI document", () => {
  it("describes every event's payload in its webhooks section", async () => {
    const doc = (await (await call("/api/v1/openapi.json")).json()) as {
      webhooks: Record<
        string,
        { post: { parameters: { name: string }[]; requestBody: { content: Record<string, { schema: EventSchema }> } } }
      >;
    };
    expect(Object.keys(doc.webhooks)).toEqual([...WEBHOOK_EVENTS, "webhook.test"]);
    for (const [type, { post }] of Object.entries(doc.webhooks)) {
      expect(post.parameters.map((p) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      const schema = post.requestBody.content["application/json"]!.schema;
      expect(schema.required).toEqual(["type", "timestamp", "data"]);
      expect(schema.properties.type.const).toBe(type);
      expect(schema.properties.data.type ?? schema.properties.data.$ref).toBeTruthy();
    }
  });
});
