// The seller API (decision 097): a Hono app under /api/v1/seller/ for resellers' and staff's own
// programs. Each call brings an API token (Authorization: Bearer), is limited per token with the
// limit stated in RateLimit header fields, and is answered with JSON or, when refused, problem
// details (RFC 9457) with the licence API's codes. No session, no cookies, no page rendering.
import { SELLER_PREFIX } from "~/lib/entry-paths";
import type { Context } from "hono";
import { Hono } from "hono/tiny";
import type * as v from "valibot";
import { API_HEADERS, problemResponse } from "~/http/api-problems.server";
import { clientAddress, clientNetwork } from "~/http/client-address.server";
import { readJson } from "~/http/request-body.server";
import { admitToken } from "~/http/token-rate-limit.server";
import { checkForm } from "~/lib/form-schema";
import type { Result } from "~/lib/result";
import { createKeysSchema, idempotencyKeySchema, pageSchema } from "~/lib/schemas/seller-api";
import { tokenHolder } from "~/server/accounts/api-tokens.server";
import { catalogueFor } from "~/server/catalogue/catalogue.server";
import { resetCooldownMs } from "~/server/licences/licences.server";
import { database } from "~/server/platform/db/client.server";
import {
  balanceHistory,
  balanceOf,
  createKeys,
  extendKey,
  listKeys,
  readKey,
  resetKeyPc,
  revokeKey,
  type SellerCall,
  type SellerDeps,
  suspendKey,
} from "~/server/seller/seller-api.server";

const P = SELLER_PREFIX.slice(0, -1);

type SellerEnv = { Bindings: Env; Variables: { call: SellerCall; deps: SellerDeps } };
type SellerContext = Context<SellerEnv>;

export const sellerApi = new Hono<SellerEnv>();

function answer<T>(result: Result<T>, status: 200 | 201 = 200): Response {
  return result.ok ? Response.json(result.value, { status, headers: API_HEADERS }) : problemResponse(result.problem);
}

/** A header or query checked with its schema; a refusal names what was wrong. */
function checked<S extends v.GenericSchema>(schema: S, value: unknown, field?: string): Result<v.InferOutput<S>> {
  const result = checkForm(schema, value);
  return result.ok || !field ? result : { ok: false, problem: { ...result.problem, field } };
}

// Every call: the client's network limit (before a token is even looked up), the token, its limit.
sellerApi.use(`${P}/*`, async (c, next) => {
  const address = clientAddress(c.req.raw);
  if (!(await c.env.LICENCE_CLIENT_LIMIT.limit({ key: `seller:${clientNetwork(address)}` })).success) {
    return problemResponse({
      code: "rate-limited",
      message: "Too many requests from this network; try again in a minute",
      retryAfterSeconds: 60,
    });
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("Authorization") ?? "")?.[1];
  if (!bearer) return problemResponse({ code: "unauthenticated", message: "Send an API token: Authorization: Bearer <token>" });
  const db = database(c.env.DB);
  const holder = await tokenHolder(db, bearer, address);
  if (!holder.ok) return problemResponse(holder.problem);
  const limit = await admitToken(c.env.SELLER_TOKEN_LIMIT, holder.value.token.id);
  if (!limit.admitted) {
    return problemResponse({ code: "rate-limited", message: "This token made too many calls; see the RateLimit header" }, limit.headers);
  }
  c.set("call", { holder: holder.value, ip: address });
  c.set("deps", {
    db,
    mail: c.env,
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    catalogue: catalogueFor(c.env),
    cooldownMs: resetCooldownMs(c.env.HWID_RESET_COOLDOWN_DAYS),
  });
  await next();
  for (const [name, value] of Object.entries(limit.headers)) c.res.headers.set(name, value);
});

const idempotencyKeyOf = (c: SellerContext) => checked(idempotencyKeySchema, c.req.header("Idempotency-Key"), "Idempotency-Key");
const pageOf = (c: SellerContext) => checked(pageSchema, c.req.query());

sellerApi.post(`${P}/keys`, async (c) => {
  const key = idempotencyKeyOf(c);
  if (!key.ok) return answer(key);
  const body = await readJson(c.req.raw);
  if (!body.ok) return answer(body);
  const input = checked(createKeysSchema, body.value);
  if (!input.ok) return answer(input);
  const created = await createKeys(c.var.deps, c.var.call, input.value, key.value);
  // A retry answers as the first call did (201), marked as a replay.
  const response = answer(created, 201);
  if (created.ok && created.value.replayed) response.headers.set("Idempotent-Replayed", "true");
  return response;
});

sellerApi.get(`${P}/keys`, async (c) => {
  const page = pageOf(c);
  return answer(page.ok ? await listKeys(c.var.deps.db, c.var.call, page.value) : page);
});

sellerApi.get(`${P}/keys/:key`, async (c) => answer(await readKey(c.var.deps.db, c.var.call, c.req.param("key"))));

sellerApi.post(`${P}/keys/:key/extend`, async (c) => {
  const key = idempotencyKeyOf(c);
  if (!key.ok) return answer(key);
  return answer(await extendKey(c.var.deps, c.var.call, c.req.param("key"), key.value));
});

sellerApi.post(`${P}/keys/:key/reset-pc`, async (c) => answer(await resetKeyPc(c.var.deps, c.var.call, c.req.param("key"))));
sellerApi.post(`${P}/keys/:key/suspend`, async (c) => answer(await suspendKey(c.var.deps, c.var.call, c.req.param("key"), true)));
sellerApi.post(`${P}/keys/:key/unsuspend`, async (c) => answer(await suspendKey(c.var.deps, c.var.call, c.req.param("key"), false)));
sellerApi.post(`${P}/keys/:key/revoke`, async (c) => answer(await revokeKey(c.var.deps, c.var.call, c.req.param("key"))));

sellerApi.get(`${P}/balance`, async (c) => answer(await balanceOf(c.var.deps.db, c.var.call)));

sellerApi.get(`${P}/balance/history`, async (c) => {
  const page = pageOf(c);
  return answer(page.ok ? await balanceHistory(c.var.deps.db, c.var.call, page.value) : page);
});

sellerApi.all("*", () => problemResponse({ code: "not-found", message: "No such endpoint, or not with this method" }));

// Whatever breaks on our side (D1 down, a binding missing) still answers as problem details.
sellerApi.onError((failure) => {
  console.error("Seller API failed", failure);
  return problemResponse({ code: "failed", message: "Something failed on our side; trying again is safe" });
});
