// /status: the service's current status and the latest updates. Admins post updates here; the
// form shows for admins only, and the server refuses a post from anyone else.
import { useFetcher } from "react-router";
import { Activity, AlertTriangle, Wrench } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, Field, FieldError, inputClass } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useViewer } from "~/components/viewer";
import { answer, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { ok } from "~/lib/result";
import { STATUS_TYPES, statusUpdateSchema } from "~/lib/schemas/status";
import { serviceBadge, serviceState } from "~/lib/status";
import { getViewer } from "~/server/accounts/session.server";
import { latestStatusUpdates, postStatusUpdate, statusAuthor } from "~/server/hub/status.server";
import { publicPageHeaders, purgePages } from "~/server/platform/edge-cache.server";
import type { Route } from "./+types/status";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `System Status | ${BRAND}` },
  { name: "description", content: `Live status of ${BRAND} and the latest update, maintenance and incident notes.` },
  { property: "og:title", content: `System Status | ${BRAND}` },
];

export async function loader({ context }: Route.LoaderArgs) {
  const updates = await latestStatusUpdates(app(context).db);
  return { updates, state: serviceState(updates[0], Date.now()) };
}

const POST_FAILED = "Failed to post update";
const titles: ProblemTitles = { unauthenticated: POST_FAILED, forbidden: POST_FAILED, invalid: POST_FAILED };

export async function action({ request, context }: Route.ActionArgs) {
  const { db } = app(context);
  // Who is posting is settled before the form is read.
  const author = statusAuthor(await getViewer(db, request));
  if (!author.ok) return answerProblem(author.problem, { titles });
  const submission = await readSubmission(request, statusUpdateSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles });
  await postStatusUpdate(db, author.value, submission.value);
  await purgePages(new URL(request.url).origin, ["/status", "/status.data"]);
  return answer(ok(), { success: { title: "Status update posted successfully!" } });
}

const TYPE_STYLE = {
  update: { icon: Activity, className: "text-sky-400" },
  maintenance: { icon: Wrench, className: "text-yellow-400" },
  incident: { icon: AlertTriangle, className: "text-red-400" },
};

const TONE = { green: "bg-green-500/15 text-green-400", yellow: "bg-yellow-500/15 text-yellow-300", red: "bg-red-500/15 text-red-400" };

function PostUpdateForm() {
  const fetcher = useFetcher<typeof action>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, statusUpdateSchema, { title: "Error" });
  return (
    <Card>
      <h2 className="text-lg font-bold">Post Status Update</h2>
      <fetcher.Form ref={formRef} method="post" className="mt-4 space-y-4" onSubmit={onSubmit}>
        <Field label="Title" name="title" maxLength={120} error={errors.title} />
        <div className="space-y-1.5">
          <label htmlFor="status-description" className="block text-sm font-medium">
            Description
          </label>
          <textarea
            id="status-description"
            name="description"
            rows={3}
            maxLength={2000}
            className={`${inputClass} h-auto py-2`}
            {...describedBy("status-description", { error: errors.description })}
          />
          <FieldError id="status-description" error={errors.description} />
        </div>
        <div className="space-y-1.5">
          <label htmlFor="status-type" className="block text-sm font-medium">
            Type
          </label>
          <select id="status-type" name="type" defaultValue="update" className={inputClass} {...describedBy("status-type", { error: errors.type })}>
            {STATUS_TYPES.map((type) => (
              <option key={type} value={type}>
                {type[0]!.toUpperCase() + type.slice(1)}
              </option>
            ))}
          </select>
          <FieldError id="status-type" error={errors.type} />
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? "Posting..." : "Post Update"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

export default function Status({ loaderData }: Route.ComponentProps) {
  const { updates, state } = loaderData;
  const { viewer } = useViewer();
  const badge = serviceBadge(state);
  return (
    <div className="mx-auto max-w-4xl space-y-8 px-4 py-12">
      <h1 className="text-3xl font-black">System Status</h1>
      <Card className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <p className="text-sm text-muted">Service</p>
          <p className="text-lg font-bold">{BRAND} Rust</p>
        </div>
        <span className={`rounded-full px-3 py-1 text-sm font-semibold ${TONE[badge.tone]}`}>{badge.label}</span>
        <dl className="flex gap-8 text-sm">
          <div>
            <dt className="text-muted">Uptime</dt>
            <dd className="font-semibold">99.9%</dd>
          </div>
          <div>
            <dt className="text-muted">Last update</dt>
            <dd className="font-semibold">Just now</dd>
          </div>
        </dl>
      </Card>

      {viewer?.isAdmin ? <PostUpdateForm /> : null}

      <section aria-labelledby="recent">
        <h2 id="recent" className="text-xl font-bold">
          Recent Updates
        </h2>
        {updates.length === 0 ? (
          <p className="mt-4 text-muted">No updates yet.</p>
        ) : (
          <ol className="mt-4 space-y-4">
            {updates.map((update) => {
              const style = TYPE_STYLE[update.type];
              return (
                <li key={update.id}>
                  <Card className="flex gap-4">
                    <style.icon className={`mt-0.5 size-5 shrink-0 ${style.className}`} aria-label={update.type} />
                    <div>
                      <h3 className="font-semibold">{update.title}</h3>
                      <p className="text-xs text-muted">
                        <LocalTime ms={update.createdAt} format="datetime" />
                      </p>
                      <p className="mt-2 text-sm text-muted">{update.description}</p>
                    </div>
                  </Card>
                </li>
              );
            })}
          </ol>
        )}
      </section>
    </div>
  );
}
