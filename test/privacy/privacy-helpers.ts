// Members with a row of their own in every table that can hold one, and a message in the chat: what
// the tests of members' own data (export and deletion) start from.
import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { parseServerFrame } from "~/lib/chat";
import { audit } from "~/server/platform/audit.server";
import {
  apiIdempotencyKeys,
  apiTokens,
  affiliateClicks,
  affiliateLedger,
  affiliates,
  authThrottle,
  backorders,
  bannedHwids,
  cryptoOrders,
  demoCheckouts,
  discordRoleReleases,
  discordRoleSync,
  emailVerificationTokens,
  licenceCompensations,
  autoRenewals,
  blocks,
  chatReports,
  chatSanctions,
  disputes,
  licenceRiskFlags,
  licenceExtensions,
  licenceRenewals,
  licenceResets,
  licences,
  loginChallenges,
  mailOutbox,
  manualOrders,
  oauthAccounts,
  passkeys,
  passwordResetTokens,
  productReviews,
  reminderOptOuts,
  renewalReminders,
  recoveryCodes,
  replacementRequests,
  resellerAccounts,
  resellerKeys,
  resellerLedger,
  reviewModeration,
  shopifyOrders,
  shopifyOrderVariants,
  shopifyRefunds,
  totpFactors,
  userSubscriptions,
  webauthnChallenges,
} from "~/server/platform/db/schema.server";
import { createAccount, db, ORIGIN, signIn, soldKey, type TestAccount, unique } from "../helpers";

export interface FullMember extends TestAccount {
  cookie: string;
  licenceKey: string;
  hwid: string;
  orderId: string;
  chatMessage: string;
  reviewBody: string;
}

/** Says `content` in the hub's chat as the member signed in with `cookie`, and waits until the room has it. */
export async function sayInChat(cookie: string, content: string): Promise<void> {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/chat/ws`, { headers: { Upgrade: "websocket", Origin: ORIGIN, Cookie: cookie } }),
  );
  expect(response.status).toBe(101);
  const ws = response.webSocket!;
  ws.accept();
  const posted = new Promise<void>((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error("the room never showed the message")), 5000);
    ws.addEventListener("message", (event) => {
      const frame = parseServerFrame(event.data);
      if (frame?.type === "message" && frame.message.content === content) {
        clearTimeout(timeout);
        resolve();
      }
    });
  });
  ws.send(JSON.stringify({ type: "send", content }));
  await posted;
  ws.close(1000, "done");
}

/** The hub's chat history as a member who just joined sees it. */
export async function chatHistory(cookie: string): Promise<string[]> {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/chat/ws`, { headers: { Upgrade: "websocket", Origin: ORIGIN, Cookie: cookie } }),
  );
  const ws = response.webSocket!;
  ws.accept();
  const history = await new Promise<string[]>((resolve) => {
    ws.addEventListener("message", (event) => {
      const frame = parseServerFrame(event.data);
      if (frame?.type === "history") resolve(frame.messages.map((message) => message.content));
    });
  });
  ws.close(1000, "done");
  return history;
}

/**
 * A member (with `role`, so user_roles has their row too) who has a row in every table that can
 * hold one: orders of every kind, a key and its licence with its PC, resets and added time, the
 * reseller and affiliate programmes, a review staff hid, Discord, mail, sign-in factors and links,
 * the audit log; and a message in the chat.
 */
export async function memberWithEverything(options: { role?: "support" } = {}): Promise<FullMember> {
  const account = await createAccount({ role: options.role });
  const { id, email } = account;
  const now = Date.now();
  const cookie = await signIn(account, unique("ip"));
  const orderId = unique("order");
  const hwid = `HWID-${unique("pc")}-0123456789`;
  const licenceKey = unique("LIC");
  const reviewBody = `Review by ${account.username}`;
  const compensation = crypto.randomUUID();
  await soldKey(email);
  await db.batch([
    db.insert(passwordResetTokens).values({ tokenHash: unique("reset"), userId: id, createdAt: now, expiresAt: now + 60_000 }),
    db.insert(emailVerificationTokens).values({ tokenHash: unique("verify"), userId: id, createdAt: now, expiresAt: now + 60_000 }),
    db.insert(passkeys).values({
      id: unique("passkey"),
      userId: id,
      name: "Laptop",
      publicKey: "cHVibGlj",
      counter: 0,
      deviceType: "singleDevice",
      backedUp: false,
      createdAt: now,
    }),
    db
      .insert(webauthnChallenges)
      .values({ id: unique("ceremony"), purpose: "register", userId: id, challenge: "c", expiresAt: now + 60_000 }),
    db.insert(totpFactors).values({ userId: id, secret: "sealed", status: "pending", createdAt: now }),
    db.insert(recoveryCodes).values({ userId: id, codeHash: unique("code") }),
    db.insert(loginChallenges).values({ id: unique("challenge"), userId: id, expiresAt: now + 60_000 }),
    db
      .insert(oauthAccounts)
      .values({ provider: "discord", providerUserId: unique("discord"), providerUsername: account.username, userId: id, createdAt: now }),
    db.insert(authThrottle).values({ key: `reviews:${id}`, failures: 1, lastFailureAt: now, blockedUntil: 0 }),
    db
      .insert(shopifyOrders)
      .values({ id: orderId, email, currency: "USD", totalPrice: "29.99", lineItems: "[]", receivedAt: now, paidAt: now }),
    db.insert(shopifyRefunds).values({ id: unique("refund"), orderId, lineItems: "[]", receivedAt: now }),
    db.insert(shopifyOrderVariants).values({ orderId, variantId: "gid://shopify/ProductVariant/1", paidAt: now }),
    db.insert(cryptoOrders).values({
      id: crypto.randomUUID(),
      orderNumber: `CRYPTO-${unique("P").toUpperCase()}`,
      userId: id,
      status: "pending",
      productTitle: "Vertex Rust",
      variantTitle: "30 Days",
      variantId: "gid://shopify/ProductVariant/1",
      customerEmail: email,
      amountCents: 8999,
      currency: "USD",
      cryptoType: "BTC",
      walletAddress: `bc1q${unique("addr")}`,
      createdAt: now,
      updatedAt: now,
    }),
    db.insert(manualOrders).values({
      userId: id,
      email,
      variantId: "gid://shopify/ProductVariant/1",
      variantTitle: "Goodwill",
      reason: "Goodwill",
      createdAt: now,
    }),
    db.insert(demoCheckouts).values({ id: unique("checkout"), userId: id, email, lines: "[]", createdAt: now }),
    db.insert(backorders).values({
      orderId,
      lineItemId: "line-1",
      unitIndex: 0,
      variantId: "gid://shopify/ProductVariant/1",
      variantTitle: "Vertex Rust - 30 Days",
      customerEmail: email,
      createdAt: now,
    }),
    db.insert(licences).values({
      key: licenceKey,
      product: "Vertex Rust",
      plan: "monthly",
      ownerEmail: email,
      createdAt: now,
      hwid,
      activatedAt: now,
      expiresAt: now + 30 * 86_400_000,
    }),
    db
      .insert(licenceCompensations)
      .values({ id: compensation, scopeKey: unique("scope"), product: "Vertex Rust", days: 1, reason: "Outage", createdAt: now }),
    db.insert(bannedHwids).values({ hwid, reason: "Cheating elsewhere", bannedAt: now }),
    db.insert(userSubscriptions).values({
      id: crypto.randomUUID(),
      userId: id,
      status: "active",
      productTitle: "Vertex Rust",
      variantTitle: "30 Days",
      priceCurrency: "USD",
      priceAmount: "89.99",
      purchaseDate: now,
    }),
    db.insert(resellerAccounts).values({ userId: id, createdAt: now }),
    db
      .insert(resellerKeys)
      .values({ id: crypto.randomUUID(), userId: id, keyCode: unique("RK"), keyType: "monthly", priceCents: 4500, purchaseDate: now }),
    db.insert(resellerLedger).values({ userId: id, kind: "credit", amountCents: 1000, reference: unique("credit"), createdAt: now }),
    db.insert(affiliates).values({
      userId: id,
      code: unique("code"),
      status: "approved",
      channel: "YouTube",
      audience: "Gamers",
      pitch: "My pitch",
      appliedAt: now,
    }),
    db.insert(affiliateClicks).values({ affiliateId: id, at: now }),
    db.insert(affiliateLedger).values({
      affiliateId: id,
      kind: "commission",
      amountCents: 500,
      availableAt: now,
      orderKey: `shopify:${unique("o")}`,
      createdAt: now,
    }),
    db.insert(productReviews).values({
      productId: `gid://shopify/Product/${unique("p")}`,
      productHandle: "vertex-rust",
      productTitle: "Vertex Rust",
      userId: id,
      rating: 5,
      body: reviewBody,
      createdAt: now,
      updatedAt: now,
    }),
    db.insert(discordRoleSync).values({ userId: id, discordId: unique("d") }),
    db.insert(discordRoleReleases).values({ userId: id, discordId: unique("old"), createdAt: now }),
    db
      .insert(mailOutbox)
      .values({ toAddress: email, subject: "Your key", textBody: "Key", createdAt: now, nextAttemptAt: now, status: "sent" }),
  ]);
  const licence = (await db.select({ id: licences.id }).from(licences).where(eq(licences.key, licenceKey)).get())!;
  const review = (await db
    .select({ productId: productReviews.productId })
    .from(productReviews)
    .where(eq(productReviews.userId, id))
    .get())!;
  await db.batch([
    db.insert(licenceResets).values({ licenceId: licence.id, by: "owner", actorUserId: id, previousHwid: hwid, resetAt: now }),
    db.insert(licenceExtensions).values({ compensationId: compensation, licenceId: licence.id }),
    db.insert(replacementRequests).values({ licenceId: licence.id, userId: id, description: "Banned after an hour", createdAt: now }),
    db.insert(reviewModeration).values({ productId: review.productId, userId: id, reason: "Off topic", hiddenAt: now }),
    db.insert(licenceRenewals).values({
      id: unique("renewal"),
      claimKey: unique("claim"),
      licenceId: licence.id,
      kind: "renewal",
      method: "card",
      fromPlan: "monthly",
      toPlan: "monthly",
      priceCents: 500,
      currency: "EUR",
      createdAt: now,
    }),
    db.insert(renewalReminders).values({ licenceId: licence.id, stage: "before-3", expiresAt: now, sentAt: now }),
    db.insert(reminderOptOuts).values({ userId: id, optedOutAt: now }),
    db.insert(autoRenewals).values({ licenceId: licence.id, userId: id, createdAt: now }),
    db.insert(disputes).values({
      id: unique("dispute"),
      orderId,
      type: "chargeback",
      status: "needs_response",
      outcome: "open",
      receivedAt: now,
    }),
    db.insert(licenceRiskFlags).values({
      licenceId: licence.id,
      state: "open",
      addresses: 12,
      countries: 4,
      evidence: "[]",
      flaggedAt: now,
    }),
    db.insert(blocks).values({ kind: "email", value: email.toLowerCase(), reason: "Chargebacks", createdAt: now }),
    db.insert(chatSanctions).values({ userId: id, kind: "mute", until: now + 60_000, reason: "Spam", createdAt: now, liftedAt: now }),
    db.insert(apiTokens).values({ userId: id, name: "Discord bot", tokenHash: unique("token-hash"), scopes: "keys:read", createdAt: now }),
    db.insert(apiIdempotencyKeys).values({ userId: id, key: unique("request"), requestHash: "0".repeat(64), claimedAt: now }),
    db.insert(chatReports).values({
      room: "general",
      messageId: 1,
      authorId: id,
      authorName: account.username,
      content: "Buy cheap keys here",
      messageAt: now,
      context: [],
      reporterId: id,
      reason: "Spam",
      createdAt: now,
    }),
  ]);
  await audit(db, id, "test.marker", id);
  const chatMessage = `Hello from ${account.username}`;
  await sayInChat(cookie, chatMessage);
  return { ...account, cookie, licenceKey, hwid, orderId, chatMessage, reviewBody };
}
