// /dashboard/health: the live shop's health, checked now (decision 098): each part's settings and
// machinery, and for each finding what to do. The same report the doctor (`npm run doctor`) fetches
// from outside; from here an admin also sends themselves a test e-mail and pings the job queue.
import { Suspense } from "react";
import { Await, useFetcher } from "react-router";
import { CheckCircle, CircleAlert, CircleSlash } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useResultToast } from "~/components/use-result-toast";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { answer, answerInvalid } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { counted } from "~/lib/format";
import { type CheckState, findingsOf, type HealthCheck, type HealthReport } from "~/lib/health";
import { fail, ok } from "~/lib/result";
import { healthActionSchema } from "~/lib/schemas/health";
import { healthReport } from "~/server/health/health-report.server";
import { pingQueue } from "~/server/platform/heartbeats.server";
import type { Route } from "./+types/health";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("health.view")];

export const meta: Route.MetaFunction = () => [{ title: `Health | ${BRAND}` }];

const production = () => import.meta.env.MODE === "production";

export function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  // Explorers, the rate source and Discord are asked while the page is on its way.
  return { report: healthReport({ db, env, origin: new URL(request.url).origin, production: production() }) };
}

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "health", healthActionSchema);
  if (!submission.ok) return answerInvalid(submission);
  const { value: input, viewer } = submission;
  const { db, env } = app(context);
  if (input.intent === "ping-queue") {
    await pingQueue(db, env.JOB_QUEUE);
    return answer(ok(), {
      intent: input.intent,
      success: { title: "Ping sent", description: "The job queue's line shows when it was handled: reload in a few seconds." },
    });
  }
  const report = await healthReport(
    { db, env, origin: new URL(request.url).origin, production: production() },
    { testMailTo: viewer.email },
  );
  const mail = report.checks.find((check) => check.id === "mail");
  const problem = mail?.findings[0];
  return answer(problem ? fail("unavailable", `${problem.problem} ${problem.fix}`) : ok(), {
    intent: input.intent,
    titles: { unavailable: "No test e-mail sent" },
    success: { title: "Test e-mail sent", description: `The mail API accepted a message to ${viewer.email}.` },
  });
}

const STATE: Record<CheckState, { label: string; tone: "green" | "red" | "gray"; Icon: typeof CheckCircle }> = {
  ok: { label: "OK", tone: "green", Icon: CheckCircle },
  problem: { label: "Fix", tone: "red", Icon: CircleAlert },
  off: { label: "Off", tone: "gray", Icon: CircleSlash },
};

function CheckCard({ check }: { check: HealthCheck }) {
  const { label, tone, Icon } = STATE[check.state];
  return (
    <Card as="section" aria-labelledby={`check-${check.id}`} className="space-y-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={`check-${check.id}`} className="flex items-center gap-2 font-bold">
          <Icon
            className={`size-4 ${check.state === "problem" ? "text-red-400" : check.state === "ok" ? "text-green-400" : "text-muted"}`}
            aria-hidden
          />
          {check.label}
        </h2>
        <Badge tone={tone}>{label}</Badge>
      </div>
      {check.findings.length > 0 ? (
        <ul className="space-y-3" aria-label={`What to fix: ${check.label}`}>
          {check.findings.map((finding) => (
            <li key={finding.problem} className="rounded-lg border border-red-500/30 bg-red-500/5 p-3 text-sm">
              <p className="font-semibold break-words text-red-300">{finding.problem}</p>
              <p className="mt-1 break-words text-zinc-300">
                <span className="font-semibold">What to do: </span>
                {finding.fix}
              </p>
            </li>
          ))}
        </ul>
      ) : null}
      {check.facts.length > 0 ? (
        <ul className="space-y-1 text-sm text-muted">
          {check.facts.map((fact) => (
            <li key={fact} className="break-words">
              {fact}
            </li>
          ))}
        </ul>
      ) : null}
    </Card>
  );
}

function Summary({ report }: { report: HealthReport }) {
  const findings = findingsOf(report);
  return (
    <p role="status" className="flex flex-wrap items-center gap-2 text-sm">
      {findings === 0 ? <Badge tone="green">All good</Badge> : <Badge tone="red">{counted(findings, "thing")} to fix</Badge>}
      <span className="text-muted">
        Checked <LocalTime ms={report.checkedAt} format="datetime" /> at {report.origin}
      </span>
    </p>
  );
}

function Actions() {
  const mail = useFetcher<typeof action>();
  const ping = useFetcher<typeof action>();
  useResultToast(mail);
  useResultToast(ping);
  return (
    <div className="flex flex-wrap gap-3">
      <mail.Form method="post">
        <input type="hidden" name="intent" value="test-mail" />
        <Button type="submit" variant="outline" disabled={mail.state !== "idle"}>
          {mail.state !== "idle" ? "Sending..." : "Send me a test e-mail"}
        </Button>
      </mail.Form>
      <ping.Form method="post">
        <input type="hidden" name="intent" value="ping-queue" />
        <Button type="submit" variant="outline" disabled={ping.state !== "idle"}>
          {ping.state !== "idle" ? "Pinging..." : "Ping the job queue"}
        </Button>
      </ping.Form>
    </div>
  );
}

export default function Health({ loaderData }: Route.ComponentProps) {
  return (
    <div className="max-w-4xl space-y-6">
      <h1 className="text-3xl font-black">Health</h1>
      <p className="text-sm text-muted">
        Every setting the live shop needs, and the machinery behind it, checked now. Each problem says what to do. The same checks run from
        outside with <code className="break-all">npm run doctor -- {"<the shop's address>"}</code>.
      </p>
      <Actions />
      <Suspense fallback={<p className="text-muted">Checking the shop...</p>}>
        <Await resolve={loaderData.report} errorElement={<p className="text-red-300">The checks could not finish: reload the page.</p>}>
          {(report) => (
            <div className="space-y-4">
              <Summary report={report} />
              {report.checks.map((check) => (
                <CheckCard key={check.id} check={check} />
              ))}
            </div>
          )}
        </Await>
      </Suspense>
    </div>
  );
}
