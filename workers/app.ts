// The Worker: security checks and headers around every request, then React Router for pages,
// loaders and actions; cron triggers run the scheduled jobs.
import { createRequestHandler, RouterContextProvider } from "react-router";
import { appContext } from "~/server/context.server";
import { runScheduledJobs } from "~/server/cron.server";
import { database } from "~/server/db/client.server";
import { seedDemoData } from "~/server/seed.server";
import { createNonce, forbiddenCrossSite, isCrossSiteRequest, withSecurityHeaders } from "~/server/security.server";

export { ChatRoom } from "./chat-room";

const handleRequest = createRequestHandler(() => import("virtual:react-router/server-build"), import.meta.env.MODE);

let seeded: Promise<void> | undefined;

export default {
  async fetch(request, env, ctx) {
    const nonce = createNonce();
    const dev = import.meta.env.DEV;
    if (isCrossSiteRequest(request)) return withSecurityHeaders(forbiddenCrossSite(), nonce, dev);

    const db = database(env.DB);
    // Local development only (not tests, never production): demo accounts, stock and files.
    if (import.meta.env.MODE === "development") {
      seeded ??= seedDemoData(db, env.DOWNLOADS).catch((error) => {
        seeded = undefined;
        throw error;
      });
      await seeded;
    }

    const context = new RouterContextProvider();
    context.set(appContext, { env, ctx, db, nonce });
    return withSecurityHeaders(await handleRequest(request, context), nonce, dev);
  },

  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
