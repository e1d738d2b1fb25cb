// GET or HEAD /dashboard/downloads/releases/:id — a release's file, streamed from R2 (a `Range`
// resumes a download), to whoever the one download rule lets have it (decision 082).
import { problemStatus } from "~/http/problem-status.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { releaseResponse } from "~/http/release-download.server";
import { downloaderOf } from "~/server/releases/download-access.server";
import { openRelease } from "~/server/releases/release-shelves.server";
import type { Route } from "./+types/downloads.release";

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { db, env, catalogue } = app(context);
  const release = await openRelease(db, env.DOWNLOADS, await downloaderOf(db, currentViewer(context)), params.id, catalogue);
  // A file link is followed, not fetched by the page: a refusal is a plain-text answer.
  if (!release.ok) {
    return new Response(release.problem.message, {
      status: problemStatus(release.problem),
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" },
    });
  }
  return releaseResponse(env.DOWNLOADS, release.value, request, "private, no-store");
}
