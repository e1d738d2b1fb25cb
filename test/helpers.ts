// Shared test helpers: requests through the real Worker, and accounts created in the real D1.
import { env, exports } from "cloudflare:workers";
import { and, desc, eq, like } from "drizzle-orm";
import { database } from "~/server/platform/db/client.server";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import * as OTPAuth from "otpauth";
import { vi } from "vitest";
import { callerOf } from "~/http/caller.server";
import { confirmEnrolment, startEnrolment } from "~/server/accounts/two-factor.server";
import worker from "../workers/app";
import {
  bulkChanges,
  cryptoOrders,
  mailOutbox,
  productCodes,
  profiles,
  resellerAccounts,
  resellerLedger,
  shopifyOrders,
  userRoles,
  users,
  webhookDeliveries,
} from "~/server/platform/db/schema.server";
import { hashPassword } from "~/server/accounts/password.server";
import { addCodes } from "~/server/keys/stock.server";
import { signWebhookBody } from "~/server/platform/shopify-hmac.server";
import type { Role } from "~/lib/roles";

export const ORIGIN = "https://shop.test";
export const db = database(env.DB);

let counter = 0;
/** A fresh, unique suffix so tests never collide on e-mail or username. */
export function unique(prefix = "u"): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}`;
}

/** A random 64-hex-digit transaction ID, as a wallet shows one. */
export function transactionId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface TestAccount {
  id: string;
  email: string;
  username: string;
  password: string;
}

export async function createAccount(
  options: { verified?: boolean; admin?: boolean; role?: Role; password?: string; createdAt?: number } = {},
): Promise<TestAccount> {
  const username = unique("member");
  const account = {
    id: crypto.randomUUID(),
    email: `${username}@example.test`,
    username,
    password: options.password ?? "correct-horse-1",
  };
  const now = options.createdAt ?? Date.now();
  await db.batch([
    db.insert(users).values({
      id: account.id,
      email: account.email,
      passwordHash: await hashPassword(account.password),
      emailVerifiedAt: options.verified === false ? null : now,
      createdAt: now,
    }),
    db.insert(profiles).values({ id: account.id, username, createdAt: now }),
  ]);
  const role = options.role ?? (options.admin ? "admin" : null);
  if (role) await db.insert(userRoles).values({ userId: account.id, role });
  return account;
}

export async function deleteAccount(id: string) {
  await db.delete(users).where(eq(users.id, id));
}

/** A request through the Worker exactly as a browser on our own site would send it. */
export function call(
  path: string,
  init: { method?: string; form?: Record<string, string>; cookie?: string; ip?: string; headers?: HeadersInit } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  const method = init.method ?? (init.form ? "POST" : "GET");
  if (method !== "GET" && !headers.has("Origin") && !headers.has("Sec-Fetch-Site")) headers.set("Origin", ORIGIN);
  if (init.cookie) headers.set("Cookie", init.cookie);
  headers.set("CF-Connecting-IP", init.ip ?? "198.51.100.1");
  return exports.default.fetch(
    new Request(`${ORIGIN}${path}`, {
      method,
      headers,
      body: init.form ? new URLSearchParams(init.form) : undefined,
      redirect: "manual",
    }),
  );
}

/**
 * Follows a verification link as a person does: opening it (which changes nothing), then pressing
 * Confirm, with the password chosen at sign-up, on the page it leads to. An unusable link answers
 * at once (a redirect with its toast).
 */
export async function confirmEmail(path: string, password: string): Promise<Response> {
  const opened = await call(path);
  if (opened.headers.get("Location") !== "/auth/verify") return opened;
  const cookie = cookieFrom(opened, "__Host-verify")!;
  const page = await (await call("/auth/verify", { cookie })).text();
  const account = /name="account" value="([^"]+)"/.exec(page)?.[1] ?? "";
  return call("/auth/verify", { form: { account, password }, cookie });
}

/** The `name=value` pair of a cookie the response sets, ready for a Cookie header. */
export function cookieFrom(response: Response, name: string): string | null {
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(";");
    if (pair?.startsWith(`${name}=`)) return pair;
  }
  return null;
}

export async function signIn(account: { email: string; password: string }, ip?: string): Promise<string> {
  const response = await call("/auth", {
    form: { intent: "login", emailOrUsername: account.email, password: account.password },
    ip,
  });
  const cookie = cookieFrom(response, "__Host-session");
  if (response.status !== 302 || !cookie) throw new Error(`sign-in failed with ${response.status}`);
  return cookie;
}

/** A request body made on demand, telling how much of it was read and whether it was cancelled. */
export interface PulledBody {
  stream: ReadableStream<Uint8Array>;
  /** The bytes handed out so far: what the reader pulled, plus at most what the runtime buffers. */
  pulledBytes(): number;
  cancelled(): boolean;
}

/** `chunk` repeated `times`, each copy made only when it is pulled; nothing is read ahead. */
export function pulledBody(chunk: string, times: number): PulledBody {
  const bytes = new TextEncoder().encode(chunk);
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled === times) return controller.close();
        pulled += 1;
        controller.enqueue(bytes.slice());
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulledBytes: () => pulled * bytes.byteLength, cancelled: () => cancelled };
}

/** A key sold to `email` by a stored order, not yet anyone's subscription. */
export async function soldKey(email: string): Promise<number> {
  const orderId = unique("order");
  const now = Date.now();
  await db.insert(shopifyOrders).values({
    id: orderId,
    email,
    currency: "USD",
    lineItems: JSON.stringify([
      {
        id: "line-1",
        variantId: "gid://shopify/ProductVariant/1",
        quantity: 1,
        title: "Vertex Rust",
        variantTitle: "30 Days",
        price: "89.99",
      },
    ]),
    receivedAt: now,
  });
  const code = await db
    .insert(productCodes)
    .values({
      variantId: "gid://shopify/ProductVariant/1",
      variantTitle: "Vertex Rust - 30 Days",
      code: unique("KEY"),
      isUsed: true,
      usedAt: now,
      customerEmail: email,
      orderId,
      orderLineId: "line-1",
      unitIndex: 0,
      createdAt: now,
    })
    .returning({ id: productCodes.id })
    .get();
  return code.id;
}

/** A pending crypto order of the demo spoofer's 30-day plan, by a fresh account, as stored before any payment. */
export async function cryptoOrder(values: Partial<typeof cryptoOrders.$inferInsert> = {}) {
  const account = await createAccount();
  const orderNumber = `CRYPTO-${unique("T").toUpperCase()}`;
  const now = Date.now();
  await db.insert(cryptoOrders).values({
    id: crypto.randomUUID(),
    orderNumber,
    userId: account.id,
    status: "pending",
    productTitle: "Vertex HWID Spoofer",
    variantTitle: "30 Days",
    variantId: "gid://shopify/ProductVariant/4710000000004",
    customerEmail: account.email,
    amountCents: 8999,
    currency: "USD",
    cryptoType: "BTC",
    walletAddress: `bc1q${unique("addr")}`,
    createdAt: now,
    updatedAt: now,
    ...values,
  });
  return { orderNumber, account };
}

/** The newest message to `to` whose subject contains `subject`, if any. */
export function latestMail(to: string, subject: string) {
  return db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.toAddress, to), like(mailOutbox.subject, `%${subject}%`)))
    .orderBy(desc(mailOutbox.id))
    .get();
}

let nextNumber = 8_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
/** A fresh numeric id for orders, lines and variants, unique within the run. */
export const nextId = () => ++nextNumber;

let quietDays = Math.floor(Math.random() * 1800);
/**
 * A day far in the past that no other test uses, as yyyy-mm-dd, and its first millisecond: one of
 * the ten years from `year` (each file names its own decade, so files running at once never share
 * a day), and a different day at every call of the file, two apart, so the day before is free too.
 */
export function quietDay(year: number): { day: string; start: number } {
  const start = Date.UTC(year, 0, 1) + (2 * (quietDays++ % 1800) + 1) * 86_400_000;
  return { day: new Date(start).toISOString().slice(0, 10), start };
}

/**
 * Waits until the fulfilment queue's consumer has handled the delivery `webhookId`: the webhook
 * only queues it, and the local queue hands it to the Worker's queue() handler moments later.
 */
export async function handled(webhookId: string) {
  await vi.waitFor(
    async () => {
      const row = await db
        .select({ outcome: webhookDeliveries.outcome })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.id, webhookId))
        .get();
      if (!row || row.outcome === "queued") throw new Error(`delivery ${webhookId} is still queued`);
    },
    { timeout: 15_000, interval: 25 },
  );
}

/**
 * Waits until the fulfilment queue's consumer has handed out a crypto order's key: its e-mail,
 * the job's last step, is in the outbox.
 */
export async function cryptoKeySent(orderId: string) {
  await vi.waitFor(
    async () => {
      if (
        !(await db
          .select({ id: mailOutbox.id })
          .from(mailOutbox)
          .where(eq(mailOutbox.dedupeKey, `crypto-key:${orderId}`))
          .get())
      ) {
        throw new Error(`crypto order ${orderId} has no key e-mail yet`);
      }
    },
    { timeout: 15_000, interval: 25 },
  );
}

/** Runs the Worker's queue() handler on one batch of message `bodies`, as `queue` delivers them. */
export async function runQueue(queue: string, bodies: unknown[], attempts = 1) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body) => ({ id: `message-${nextId()}`, timestamp: Date.now(), attempts, body })),
  );
  // The test harness keeps which messages were retried, not the delay asked for: watch for it.
  const retries = batch.messages.map((message) => vi.spyOn(message, "retry"));
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  const delays = retries.flatMap((spy) => spy.mock.calls.map(([options]) => options?.delaySeconds));
  return { ...result, delays };
}

/** A Shopify webhook, signed as Shopify signs it; it must be accepted, and is then handled. */
export async function deliver(topic: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const webhookId = crypto.randomUUID();
  const headers = new Headers({
    "Content-Type": "application/json",
    "X-Shopify-Topic": topic,
    "X-Shopify-Webhook-Id": webhookId,
    "X-Shopify-Hmac-Sha256": await signWebhookBody(body, env.SHOPIFY_WEBHOOK_SECRET),
  });
  const response = await exports.default.fetch(new Request(`${ORIGIN}/webhooks/shopify`, { method: "POST", headers, body }));
  if (response.status !== 200) throw new Error(`the ${topic} webhook answered ${response.status}`);
  await handled(webhookId);
}

/** A paid Shopify order of one line, as its orders/paid webhook carries it; fresh order and line ids. */
export function paidOrderPayload(
  line: { variant: number; variantTitle: string; title?: string; quantity?: number; price: string },
  order: { namePrefix?: string; email?: string } = {},
) {
  const id = nextId();
  const { variant, variantTitle, title = "Vertex Rust", quantity = 1, price } = line;
  return {
    id,
    name: `${order.namePrefix ?? "#"}${id % 100000}`,
    email: order.email ?? `${unique("buyer")}@example.test`,
    currency: "USD",
    total_price: price,
    financial_status: "paid",
    line_items: [{ id: nextId(), variant_id: variant, quantity, title, variant_title: variantTitle, price }],
  };
}

/** A key of `product` sold through a signed Shopify order webhook, as the shop sells them. */
export async function boughtKey(variantTitle = "1 Week", email = `${unique("buyer")}@example.test`, product = "Vertex Rust") {
  const variant = nextId();
  const code = `LIC-${variant}`;
  await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: `${product} - ${variantTitle}` }, code);
  const order = paidOrderPayload({ variant, variantTitle, title: product, price: "29.99" }, { email });
  await deliver("orders/paid", order);
  return { key: code, email, orderId: order.id, lineId: order.line_items[0]!.id, order };
}

/** A member's reseller balance (undefined before their account opens) and the purchases it paid, oldest first. */
export async function balanceOf(userId: string) {
  const [account, purchases] = await Promise.all([
    db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get(),
    db
      .select()
      .from(resellerLedger)
      .where(and(eq(resellerLedger.userId, userId), eq(resellerLedger.kind, "purchase")))
      .orderBy(resellerLedger.id)
      .all(),
  ]);
  return { cents: account?.balanceCents, purchases };
}

/** A hardware id as a loader sends one, unique unless named. */
export const hwid = (name = unique("pc")) => `HWID-${name}-0123456789`;

/** Whether `body` is what the shop signed in `response`'s Licence-Signature, with the public key the API publishes. */
export async function signedByShop(response: Response, body: string): Promise<boolean> {
  const { publicKey } = (await (await exports.default.fetch(`${ORIGIN}/api/v1/licences/signing-key`)).json()) as { publicKey: string };
  const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", bytes(publicKey), { name: "Ed25519" }, false, ["verify"]);
  return crypto.subtle.verify("Ed25519", key, bytes(response.headers.get("Licence-Signature")!), new TextEncoder().encode(body));
}

/** One call to the licence API, from a client address of its own unless one is given. */
export async function validate(body: unknown, ip = `203.0.113.${Math.floor(Math.random() * 250)}`) {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/licences/validate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { response, text, json: JSON.parse(text) };
}

/** The shop's fraud settings as an admin saves them on Licences at risk: the defaults, with `changes`. */
export function saveFraudSettings(cookie: string, changes: Record<string, string> = {}) {
  const form = {
    intent: "settings",
    windowHours: "24",
    flagAddresses: "10",
    flagCountries: "5",
    suspendAddresses: "",
    suspendCountries: "",
    holdRiskyOrders: "",
  };
  return call("/dashboard/licences-at-risk", { form: { ...form, ...changes }, cookie });
}

/** A dispute body as Shopify's disputes/create and disputes/update webhooks carry it. */
export function disputeBody(orderId: number | string, status: string, id = nextId()) {
  return {
    id,
    order_id: Number(orderId),
    type: "chargeback",
    amount: "29.99",
    currency: "USD",
    reason: "fraudulent",
    network_reason_code: "4837",
    status,
    evidence_due_by: "2030-01-15T19:00:00-05:00",
    evidence_sent_on: null,
    finalized_on: status === "won" || status === "lost" ? "2030-01-20T10:00:00-05:00" : null,
    initiated_at: "2029-12-31T19:00:00-05:00",
  };
}

/** Turns two-factor sign-in on for `member` (which ends their sessions): the app's codes, and the recovery codes. */
export async function enableTwoFactor(member: TestAccount) {
  const viewer = { id: member.id, email: member.email, username: member.username, avatarUrl: null, role: null };
  const started = await startEnrolment(db, env.TOTP_ENCRYPTION_KEY, viewer);
  if (!started.ok) throw new Error(started.problem.message);
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(started.value.secret), digits: 6, period: 30 });
  const from = callerOf(new Request(ORIGIN, { headers: { "CF-Connecting-IP": unique("ip") } }));
  // The code of the step before: the one signing in next uses the current step.
  const code = totp.generate({ timestamp: Date.now() - 30_000 });
  const confirmed = await confirmEnrolment({ db, sessionsEnded: async () => {} }, env.TOTP_ENCRYPTION_KEY, viewer, from, code);
  if (!confirmed.ok) throw new Error(confirmed.problem.message);
  return { totp, recoveryCodes: confirmed.value.recoveryCodes };
}

/** Signs `member` in with their password and then a current code from the app: the session cookie. */
export async function signInWithCode(member: TestAccount, totp: OTPAuth.TOTP) {
  const ip = unique("ip");
  const first = await call("/auth", { form: { intent: "login", emailOrUsername: member.email, password: member.password }, ip });
  const challenge = first.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => pair.startsWith("__Host-2fa="));
  if (!challenge) throw new Error("no second-factor challenge");
  const second = await call("/auth/2fa", { form: { code: totp.generate() }, cookie: challenge, ip });
  const session = second.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => pair.startsWith("__Host-session="));
  if (!session) throw new Error(`second step answered ${second.status}`);
  return session;
}

/** A staff member's latest bulk-change preview's token, as the page's confirmation sends it back (decision 104). */
export async function latestBulkToken(actorId: string): Promise<string> {
  const row = await db.select().from(bulkChanges).where(eq(bulkChanges.actorUserId, actorId)).orderBy(desc(bulkChanges.createdAt)).get();
  if (!row) throw new Error("no preview was recorded");
  return row.id;
}
