// The Worker: security checks and headers around every request, then React Router for pages,
// loaders and actions; the job queue's batches go to its consumer; cron triggers run the
// scheduled jobs. Each kind of request loads the code that answers it on first use (dynamic
// imports), so a cold start evaluates this small entry and what its first request needs: a
// licence check never evaluates the pages, a cached page neither the pages nor the APIs
// (decision 107). A module loaded this way is still one instance per isolate.
import type { RequestHandler, RouterContextProvider } from "react-router";
import { onFirstUse } from "~/server/platform/on-first-use.server";
import {
  API_PREFIX,
  CHAT_PATH,
  DEV_RECEIVER_PATH,
  HEALTH_PATH,
  inSignedInArea,
  REMINDER_UNSUBSCRIBE_PATH,
  SELLER_PREFIX,
} from "~/lib/entry-paths";

export { ChatRoom } from "./chat-room";
export { KeyWatch } from "./key-watch";

// A page's security headers and the edge cache, which no API call uses (decision 116).
const pageEdge = onFirstUse(() => Promise.all([import("~/http/security.server"), import("~/http/edge-cache.server")]));
const pages = onFirstUse(() => import("./pages"));
const webhooks = onFirstUse(() => import("./webhooks"));
const sellerApi = onFirstUse(() => import("./seller-api"));
const api = onFirstUse(() => import("./api"));
const health = onFirstUse(() => import("./health"));
const reminders = onFirstUse(() => import("~/http/reminder-unsubscribe.server"));
const devReceiver = onFirstUse(() => import("~/http/dev-webhook-receiver.server"));
const jobConsumer = onFirstUse(() => import("~/server/jobs/job-consumer.server"));
const cron = onFirstUse(() => import("~/server/jobs/cron.server"));

// Unexpected errors in loaders, actions and middleware are logged and answered with a reference.
const serverBuild = () =>
  Promise.all([import("virtual:react-router/server-build"), pages()]).then(([build, { withErrorReferences }]) =>
    withErrorReferences(build),
  );

// Handed a function, React Router derives its routes from the build again for every request: what
// development needs (an edit takes effect at once), and a fifth of an uncached page's CPU anywhere
// else. So outside development the build is loaded and derived once, on the first page request.
let developmentHandler: RequestHandler | undefined;
let builtHandler: Promise<RequestHandler> | undefined;

async function handleRequest(request: Request, context: RouterContextProvider): Promise<Response> {
  const { createRequestHandler } = await pages();
  if (import.meta.env.DEV) {
    developmentHandler ??= createRequestHandler(serverBuild, import.meta.env.MODE);
    return developmentHandler(request, context);
  }
  builtHandler ??= serverBuild().then(
    (build) => createRequestHandler(build, import.meta.env.MODE),
    (error: unknown) => {
      builtHandler = undefined;
      throw error;
    },
  );
  return builtHandler.then((handler) => handler(request, context));
}

let seeded: Promise<void> | undefined;

export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    // Machine callers first: they prove themselves by signature or key, not by session or origin.
    if (pathname.startsWith("/webhooks/")) return (await webhooks()).webhooks.fetch(request, env, ctx);
    if (pathname.startsWith(SELLER_PREFIX)) return (await sellerApi()).sellerApi.fetch(request, env, ctx);
    if (pathname.startsWith(API_PREFIX)) return (await api()).api.fetch(request, env, ctx);
    if (pathname === HEALTH_PATH || pathname.startsWith(`${HEALTH_PATH}/`)) return (await health()).health(request, env);
    if (pathname === REMINDER_UNSUBSCRIBE_PATH && request.method === "POST")
      return (await reminders()).unsubscribeFromReminders(request, env);
    // The development server's local webhook receiver: deliveries carry a signature, not an Origin.
    if (import.meta.env.DEV && pathname === DEV_RECEIVER_PATH && request.method === "POST")
      return (await devReceiver()).receiveDevWebhook(request, env);
    const [{ createNonce, forbiddenCrossSite, isCrossSiteRequest, staticScriptHashes, withSecurityHeaders }, { serveWithEdgeCache }] =
      await pageEdge();
    // A page's policy and nonce are made when it is rendered: a cached copy is served with its own.
    const policy = async () => ({ nonce: createNonce(), scriptHashes: await staticScriptHashes(), dev: import.meta.env.DEV });
    if (isCrossSiteRequest(request)) return withSecurityHeaders(forbiddenCrossSite(), await policy());

    if (pathname === CHAT_PATH) {
      const { connectToChat, database } = await pages();
      return connectToChat(request, env, database(env.DB));
    }
    // Local development only (not tests, never production): demo accounts, stock and files.
    if (import.meta.env.MODE === "development") {
      const { database, seedDemoData } = await pages();
      seeded ??= seedDemoData(database(env.DB), env.DOWNLOADS).catch((error) => {
        seeded = undefined;
        throw error;
      });
      await seeded;
    }

    const render = async () => {
      const [csp, { RouterContextProvider, appContext, catalogueFor, database }] = await Promise.all([policy(), pages()]);
      const context = new RouterContextProvider();
      context.set(appContext, { env, ctx, db: database(env.DB), catalogue: catalogueFor(env), nonce: csp.nonce });
      return withSecurityHeaders(await handleRequest(request, context), csp, request.method);
    };
    // Development always renders fresh; elsewhere public pages are served from the edge cache
    // unless EDGE_CACHE is "off". The signed-in area is never public: its pages skip the lookup.
    const edgeCache = import.meta.env.MODE !== "development" && env.EDGE_CACHE !== "off" && !inSignedInArea(pathname);
    return edgeCache ? serveWithEdgeCache(request, ctx, render) : render();
  },

  async queue(batch, env, ctx) {
    const { DEAD_LETTERS, recordDeadJobs, runJobBatch } = await jobConsumer();
    if (batch.queue === DEAD_LETTERS) return recordDeadJobs(env, batch);
    return runJobBatch(env, batch, (promise) => ctx.waitUntil(promise));
  },

  async scheduled(controller, env, ctx) {
    ctx.waitUntil(cron().then(({ runScheduledJobs }) => runScheduledJobs(env, controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
