// The Worker: security checks and headers around every request, then React Router for pages,
// loaders and actions; the job queue's batches go to its consumer; cron triggers run the
// scheduled jobs.
import { createRequestHandler, type RequestHandler, RouterContextProvider } from "react-router";
import { catalogueFor } from "~/server/catalogue/catalogue.server";
import { CHAT_PATH, connectToChat } from "~/http/chat.server";
import { appContext } from "~/http/context.server";
import { withErrorReferences } from "~/http/error-reference.server";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { DEAD_LETTERS, recordDeadJobs, runJobBatch } from "~/server/jobs/job-consumer.server";
import { database } from "~/server/platform/db/client.server";
import { serveWithEdgeCache } from "~/http/edge-cache.server";
import { REMINDER_UNSUBSCRIBE_PATH, unsubscribeFromReminders } from "~/http/reminder-unsubscribe.server";
import { forFirstPaint } from "~/http/first-paint.server";
import { DEV_RECEIVER_PATH, receiveDevWebhook } from "~/http/dev-webhook-receiver.server";
import { seedDemoData } from "~/server/jobs/demo-seed.server";
import { createNonce, forbiddenCrossSite, isCrossSiteRequest, staticScriptHashes, withSecurityHeaders } from "~/http/security.server";

import { API_PREFIX, api } from "./api";
import { HEALTH_PATH, health } from "./health";
import { SELLER_PREFIX, sellerApi } from "./seller-api";
import { webhooks } from "./webhooks";

export { ChatRoom } from "./chat-room";
export { KeyWatch } from "./key-watch";

// Unexpected errors in loaders, actions and middleware are logged and answered with a reference.
const serverBuild = () => import("virtual:react-router/server-build").then(withErrorReferences);

// Handed a function, React Router derives its routes from the build again for every request: what
// development needs (an edit takes effect at once), and a fifth of an uncached page's CPU anywhere
// else. So outside development the build is loaded and derived once, on the first page request.
let developmentHandler: RequestHandler | undefined;
let builtHandler: Promise<RequestHandler> | undefined;

function handleRequest(request: Request, context: RouterContextProvider): Promise<Response> {
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
    if (pathname.startsWith("/webhooks/")) return webhooks.fetch(request, env, ctx);
    if (pathname.startsWith(SELLER_PREFIX)) return sellerApi.fetch(request, env, ctx);
    if (pathname.startsWith(API_PREFIX)) return api.fetch(request, env, ctx);
    if (pathname === HEALTH_PATH || pathname.startsWith(`${HEALTH_PATH}/`)) return health(request, env);
    if (pathname === REMINDER_UNSUBSCRIBE_PATH && request.method === "POST") return unsubscribeFromReminders(request, env);
    // The development server's local webhook receiver: deliveries carry a signature, not an Origin.
    if (import.meta.env.DEV && pathname === DEV_RECEIVER_PATH && request.method === "POST") return receiveDevWebhook(request, env);
    // A page's policy and nonce are made when it is rendered: a cached copy is served with its own.
    const policy = async () => ({ nonce: createNonce(), scriptHashes: await staticScriptHashes(), dev: import.meta.env.DEV });
    if (isCrossSiteRequest(request)) return withSecurityHeaders(forbiddenCrossSite(), await policy());

    const db = database(env.DB);
    if (pathname === CHAT_PATH) return connectToChat(request, env, db);
    // Local development only (not tests, never production): demo accounts, stock and files.
    if (import.meta.env.MODE === "development") {
      seeded ??= seedDemoData(db, env.DOWNLOADS).catch((error) => {
        seeded = undefined;
        throw error;
      });
      await seeded;
    }

    const render = async () => {
      const csp = await policy();
      const context = new RouterContextProvider();
      context.set(appContext, { env, ctx, db, catalogue: catalogueFor(env), nonce: csp.nonce });
      return withSecurityHeaders(forFirstPaint(await handleRequest(request, context), pathname), csp, request.method);
    };
    // Development always renders fresh; elsewhere public pages are served from the edge cache
    // unless EDGE_CACHE is "off".
    const edgeCache = import.meta.env.MODE !== "development" && env.EDGE_CACHE !== "off";
    return edgeCache ? serveWithEdgeCache(request, ctx, render) : render();
  },

  async queue(batch, env, ctx) {
    if (batch.queue === DEAD_LETTERS) return recordDeadJobs(env, batch);
    return runJobBatch(env, batch, (promise) => ctx.waitUntil(promise));
  },

  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
