// One release's upload in progress: GET says which parts are stored (a resumed upload skips them),
// PUT ?part=n stores one part (its bytes streamed to R2, one part per request), POST joins the parts
// and computes the file's SHA-256. Nested under the Releases page and its guard.
import { data } from "react-router";
import { answer } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { finishRelease, storePart, uploadProgress } from "~/server/releases/release-uploads.server";
import type { Route } from "./+types/releases.upload";

const UPLOAD_FAILED = "Upload failed";
const titles = { conflict: UPLOAD_FAILED, invalid: UPLOAD_FAILED, "not-found": UPLOAD_FAILED };

export async function loader({ params, context }: Route.LoaderArgs) {
  return answer(await uploadProgress(app(context).db, params.id), { titles, success: { title: "Upload resumed" } });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  if (request.method === "PUT") {
    const part = Number(new URL(request.url).searchParams.get("part"));
    const length = Number(request.headers.get("Content-Length") ?? -1);
    return answer(await storePart(db, env.DOWNLOADS, params.id, part, request.body, length), { titles, success: { title: "Part stored" } });
  }
  if (request.method !== "POST") throw data("Use PUT for a part, POST to finish", { status: 405, headers: { Allow: "GET, PUT, POST" } });
  return answer(await finishRelease(db, env.DOWNLOADS, currentViewer(context), params.id), {
    titles,
    success: ({ sha256 }) => ({ title: "Upload complete", description: `SHA-256 ${sha256}` }),
  });
}
