// The public licence API: a Hono app under /api/v1, called by the shop's loader, not by browsers.
// No session, no page rendering, no catalogue (but for the plans a refused download names): each
// call is rate-limited (per client address, then per key, by Cloudflare's rate-limiting bindings),
// read, checked in one D1 query, and answered with JSON whose exact bytes are signed with the
// shop's Ed25519 key (decision 030).
import { onFirstUse } from "~/server/platform/on-first-use.server";
import { API_PREFIX } from "~/lib/entry-paths";
import type { Context } from "hono";
import { Hono } from "hono/tiny";
import type * as v from "valibot";
import { checkForm } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { deactivateLicenceSchema, validateLicenceSchema } from "~/lib/schemas/licences";
import type { latestReleaseSchema } from "~/lib/schemas/releases";
import { clientAddress, clientNetwork, countryOf, placeOf } from "~/http/client-address.server";
import { problemHeaders, problemStatus } from "~/http/problem-status.server";
import { type LicenceSigner, licenceSigner, signAnswer } from "~/server/licences/signing.server";
import { signedRenewLink } from "~/server/licences/renew-links.server";
import { DEFAULT_WATCH_SEND_SECONDS, type KeyWatchNamespace, sightingReports } from "~/server/licences/sighting-reports.server";
import { type LicenceAnswer, nonNegativeSetting, offlineLeaseMs, validateLicence } from "~/server/licences/validation.server";
import type { DeactivationAnswer } from "~/server/licences/licences.server";
import { database, replicaDatabase } from "~/server/platform/db/client.server";
import { readJson } from "~/http/request-body.server";

/** The rate-limiting bindings' window, in seconds (wrangler.toml): when a refused caller may retry. */
const LIMIT_PERIOD_SECONDS = 60;

/** Error codes of the API's error body; stable, like the answer codes. Statuses are the edge's one table. */
const ERROR_CODES = {
  invalid: "INVALID_REQUEST",
  "too-large": "REQUEST_TOO_LARGE",
  "rate-limited": "RATE_LIMITED",
  unavailable: "UNAVAILABLE",
} as const;
type ApiProblem = Problem & { code: keyof typeof ERROR_CODES };

const HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

function error(problem: ApiProblem): Response {
  const { code, message, field } = problem;
  const headers = new Headers({ ...HEADERS, ...problemHeaders(problem) });
  return Response.json(
    { error: { code: ERROR_CODES[code], message, ...(field ? { field } : {}) } },
    { status: problemStatus(problem), headers },
  );
}

const unavailable = () => error({ code: "unavailable", message: "Licence checks are not available right now" });

const rateLimited = () =>
  error({ code: "rate-limited", message: "Too many requests; try again in a minute", retryAfterSeconds: LIMIT_PERIOD_SECONDS });

export const api = new Hono<{ Bindings: Env }>();

// A licence check, the API's hot path, loads only what it uses: the other endpoints load their
// domain code on their first call (decision 107).
const releasing = onFirstUse(() =>
  Promise.all([
    import("~/server/releases/release-links.server"),
    import("~/http/release-download.server"),
    import("~/server/catalogue/catalogue.server"),
  ]),
);
const pcRelease = onFirstUse(() => import("~/server/licences/licences.server"));
const openApi = onFirstUse(() => import("./openapi-served"));
// The auto-update's request schema too: it brings the release channels and version rules along.
const releaseRequest = onFirstUse(() => import("~/lib/schemas/releases"));

/**
 * What every POST of the API starts with: the per-client limit, the body, `schema`, the signer. A
 * Response is a refusal to send as it is.
 */
async function readCall<S extends typeof validateLicenceSchema | typeof latestReleaseSchema | typeof deactivateLicenceSchema>(
  c: Context<{ Bindings: Env }>,
  schema: S,
) {
  const request = c.req.raw;
  if (!(await c.env.LICENCE_CLIENT_LIMIT.limit({ key: clientNetwork(clientAddress(request)) })).success) return rateLimited();
  const body = await readJson(request);
  if (!body.ok)
    return error({
      ...body.problem,
      code: body.problem.code === "too-large" ? "too-large" : "invalid",
      message: "The body must be a JSON object of at most 64 KB",
    });
  const input = checkForm(schema, body.value);
  if (!input.ok) return error({ ...input.problem, code: "invalid" });
  const signer = await licenceSigner(c.env.LICENCE_SIGNING_KEY);
  if (!signer.ok) return unavailable();
  return { input: input.value as v.InferOutput<S>, signer: signer.value };
}

/** The per-key limit: the PC a key is bound to has a budget of its own, every other caller shares one. */
const keyLimit = (c: Context<{ Bindings: Env }>, key: string) => async (boundPc: boolean) =>
  (await c.env.LICENCE_KEY_LIMIT.limit({ key: `${boundPc ? "pc" : "key"}:${key}` })).success;

/** A licence check as validate and releases/latest make it: the call read, then the validation with its per-key limit. */
async function checkedLicence<S extends typeof validateLicenceSchema | typeof latestReleaseSchema>(
  c: Context<{ Bindings: Env }>,
  schema: S,
) {
  const call = await readCall(c, schema);
  if (call instanceof Response) return call;
  const request = c.req.raw;
  const address = clientAddress(request);
  const country = countryOf(request);
  const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
  // A stale replica is harmless here (decision 068): a bind is a conditional write on the primary,
  // and a key that looked free but is taken is read again, fresh, in the same session.
  const answer = await validateLicence(replicaDatabase(c.env.DB), call.input, {
    locate: () => placeOf(request),
    leaseMs: offlineLeaseMs(c.env.LICENCE_OFFLINE_HOURS),
    recordCheck: (write) =>
      c.executionCtx.waitUntil(write.catch((error: unknown) => console.error("Recording a licence check failed", error))),
    admit: keyLimit(c, call.input.key),
    renewLink: (licence) => signedRenewLink(call.signer, new URL(request.url).origin, licence, Date.now()),
    // The blocklist judges the caller's address and country inside the check's one read.
    address,
    country,
    // Shared-key detection: the watch of the key's group hears of the check after the answer (decision 105).
    sighted: (licenceId) =>
      sightingReports.report(
        c.env.KEY_WATCH as unknown as KeyWatchNamespace,
        waitUntil,
        { licenceId, address, country, at: Date.now() },
        nonNegativeSetting(c.env.LICENCE_WATCH_SEND_SECONDS, DEFAULT_WATCH_SEND_SECONDS) * 1000,
      ),
  });
  if (!answer.ok) return rateLimited();
  return { ...call, answer: answer.value };
}

async function signed(signer: LicenceSigner, body: LicenceAnswer | DeactivationAnswer) {
  const { bytes, signature } = await signAnswer(signer, body);
  return new Response(bytes, { headers: { ...HEADERS, "Content-Type": "application/json", "Licence-Signature": signature } });
}

api.post(`${API_PREFIX}licences/validate`, async (c) => {
  const checked = await checkedLicence(c, validateLicenceSchema);
  return checked instanceof Response ? checked : signed(checked.signer, checked.answer);
});

// The program releases its own PC (decision 089): only the PC the key is bound to, as often as the
// hub's Reset PC allows, audited; the answer is signed like a validation's.
api.post(`${API_PREFIX}licences/deactivate`, async (c) => {
  const call = await readCall(c, deactivateLicenceSchema);
  if (call instanceof Response) return call;
  const { releaseOwnPc, resetCooldownMs } = await pcRelease();
  const released = await releaseOwnPc(database(c.env.DB), call.input, {
    cooldownMs: resetCooldownMs(c.env.HWID_RESET_COOLDOWN_DAYS),
    ip: clientAddress(c.req.raw),
    admit: keyLimit(c, call.input.key),
  });
  return released.ok ? signed(call.signer, released.value) : rateLimited();
});

// The program's auto-update: the validation's checks, then the newest release the licence may have.
api.post(`${API_PREFIX}releases/latest`, async (c) => {
  const checked = await checkedLicence(c, (await releaseRequest()).latestReleaseSchema);
  if (checked instanceof Response) return checked;
  const { signer, answer, input } = checked;
  const [{ latestReleaseAnswer }] = await releasing();
  return signed(
    signer,
    await latestReleaseAnswer(database(c.env.DB), c.env.DOWNLOADS, signer, new URL(c.req.url).origin, answer, input.channel),
  );
});

// A signed link from releases/latest: no session, no key; the link proves which licence it was
// issued for, and the download rule judges that licence again now (decision 082).
api.on(["GET", "HEAD"], `${API_PREFIX}releases/:id/download`, async (c) => {
  const signer = await licenceSigner(c.env.LICENCE_SIGNING_KEY);
  if (!signer.ok) return unavailable();
  const [{ releaseByLink }, { releaseResponse }, { catalogueFor }] = await releasing();
  const { searchParams } = new URL(c.req.url);
  const link = { licence: searchParams.get("licence"), expires: searchParams.get("expires"), signature: searchParams.get("signature") };
  // The catalogue is read only to name, in a refusal, the plans that would allow the download.
  const release = await releaseByLink(database(c.env.DB), c.env.DOWNLOADS, signer.value, catalogueFor(c.env), c.req.param("id"), link);
  if (!release.ok) {
    const status = release.problem.code === "forbidden" ? 403 : 404;
    return Response.json(
      { error: { code: status === 403 ? "FORBIDDEN" : "NOT_FOUND", message: release.problem.message } },
      { status, headers: HEADERS },
    );
  }
  return releaseResponse(c.env.DOWNLOADS, release.value, c.req.raw, "private, no-store");
});

for (const endpoint of ["licences/validate", "licences/deactivate"])
  api.all(`${API_PREFIX}${endpoint}`, () =>
    Response.json({ error: { code: "METHOD_NOT_ALLOWED", message: "Use POST" } }, { status: 405, headers: { ...HEADERS, Allow: "POST" } }),
  );

api.get(`${API_PREFIX}licences/signing-key`, async (c) => {
  const signer = await licenceSigner(c.env.LICENCE_SIGNING_KEY);
  if (!signer.ok) return unavailable();
  return Response.json(
    { alg: "Ed25519", publicKey: signer.value.publicKey },
    { headers: { ...HEADERS, "Cache-Control": "public, max-age=300" } },
  );
});

api.get(`${API_PREFIX}openapi.json`, async (c) => {
  const { servedOpenApiDocument } = await openApi();
  return Response.json(await servedOpenApiDocument(c.env.ASSETS, c.req.url), {
    headers: { ...HEADERS, "Cache-Control": "public, max-age=300" },
  });
});

// Whatever breaks on our side (D1 down, a binding missing) still answers in the API's error shape.
api.onError((failure) => {
  console.error("Licence API failed", failure);
  return unavailable();
});

api.all("*", () => Response.json({ error: { code: "NOT_FOUND", message: "No such endpoint" } }, { status: 404, headers: HEADERS }));
