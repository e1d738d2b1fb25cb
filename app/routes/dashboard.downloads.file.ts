// GET /dashboard/downloads/:id — the file itself, streamed from R2 after the session (dashboard
// middleware) and, for subscription-only files, an active subscription have been checked.
import { app } from "~/server/platform/context.server";
import { downloadResponse } from "~/server/hub/downloads.server";
import { currentViewer } from "~/http/guards.server";
import type { Route } from "./+types/dashboard.downloads.file";

export async function loader({ params, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  return downloadResponse(db, env.DOWNLOADS, currentViewer(context), params.id);
}
