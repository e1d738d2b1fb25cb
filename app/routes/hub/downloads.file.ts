// GET /dashboard/downloads/:id — the file itself, streamed from R2 after the session (dashboard
// middleware) and, for subscription-only files, an active subscription have been checked.
import { problemStatus } from "~/http/problem-status.server";
import { currentViewer } from "~/http/guards.server";
import { contentDisposition, openDownload } from "~/server/hub/downloads.server";
import { app } from "~/http/context.server";
import type { Route } from "./+types/downloads.file";

export async function loader({ params, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const result = await openDownload(db, env.DOWNLOADS, currentViewer(context), params.id);
  // A file link is followed, not fetched by the page: a refusal is a plain-text answer.
  if (!result.ok) {
    return new Response(result.problem.message, {
      status: problemStatus(result.problem),
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" },
    });
  }
  const { fileName, contentType, object } = result.value;
  return new Response(object.body, {
    headers: {
      "Content-Type": contentType,
      "Content-Length": String(object.size),
      "Content-Disposition": contentDisposition(fileName),
      "Cache-Control": "private, no-store",
      ETag: object.httpEtag,
    },
  });
}
