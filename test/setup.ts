import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// The Worker loads most of its code on first use (decision 107). Under Vitest each module comes
// from Vite's module runner, over I/O that belongs to the request that first asked for it: a second
// request importing the same module at that moment (files run side by side in one workerd) would
// wait on the first one's I/O, which the runtime cancels as a hang. A deployed Worker has them in
// its bundle. So they are loaded here, outside any request, before a test sends one.
await Promise.all([
  import("virtual:react-router/server-build"),
  import("../workers/pages"),
  import("../workers/webhooks"),
  import("../workers/seller-api"),
  import("../workers/api"),
  import("../workers/health"),
  import("../workers/openapi"),
  import("../workers/chat-room-core"),
  import("~/http/security.server"),
  import("~/http/edge-cache.server"),
  import("~/lib/schemas/releases"),
  import("~/server/licences/licence-events.server"),
  import("~/http/reminder-unsubscribe.server"),
  import("~/http/dev-webhook-receiver.server"),
  import("~/http/release-download.server"),
  import("~/server/jobs/job-consumer.server"),
  import("~/server/jobs/cron.server"),
  import("~/server/blocks/fraud-settings.server"),
  import("~/server/licences/sharing.server"),
  import("~/server/licences/licences.server"),
  import("~/server/releases/release-links.server"),
  import("~/server/catalogue/catalogue.server"),
  import("~/server/chat/rooms.server"),
  import("~/server/platform/db/client.server"),
  import("~/server/platform/markdown.server"),
  import("uqr"),
  import("@simplewebauthn/server"),
]);
