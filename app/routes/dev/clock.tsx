// /dev/clock: moves this browser's clock some days ahead (development and tests only), so a
// browser test can see what happens after an affiliate commission's 30-day hold.
import { Form, redirect } from "react-router";
import * as v from "valibot";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { answerInvalid } from "~/http/answer.server";
import { notFound } from "~/http/refusals.server";
import { readSubmission } from "~/http/submission.server";
import { MAX_TEST_CLOCK_DAYS, TEST_CLOCK_ENABLED, testClockCookie, testClockDays } from "~/http/test-clock.server";
import type { Route } from "./+types/clock";

export const meta: Route.MetaFunction = () => [{ title: "Test clock" }, { name: "robots", content: "noindex" }];

const clockSchema = v.object({
  days: v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.regex(/^\d{1,4}$/, "Enter a number of days"),
    v.transform(Number),
    v.maxValue(MAX_TEST_CLOCK_DAYS, `At most ${MAX_TEST_CLOCK_DAYS} days`),
  ),
});

export function loader({ request }: Route.LoaderArgs) {
  if (!TEST_CLOCK_ENABLED) throw notFound();
  return { days: testClockDays(request) };
}

export async function action({ request }: Route.ActionArgs) {
  if (!TEST_CLOCK_ENABLED) throw notFound();
  const submission = await readSubmission(request, clockSchema);
  if (!submission.ok) return answerInvalid(submission);
  return redirect("/dev/clock", { headers: { "Set-Cookie": testClockCookie(submission.value.days) } });
}

export default function TestClock({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <div className="mx-auto max-w-xl space-y-4 px-4 py-10">
      <h1 className="text-2xl font-bold">Test clock</h1>
      <p className="text-sm text-muted">
        This page exists only in development. It moves this browser's clock ahead for the affiliate dashboard, so a held commission can be
        seen released.
      </p>
      <Card>
        <p role="status">This browser is {loaderData.days} day(s) ahead.</p>
        <Form method="post" className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end">
          <Field
            label="Days ahead"
            name="days"
            inputMode="numeric"
            defaultValue={String(loaderData.days)}
            className="sm:flex-1"
            error={actionData?.ok === false ? actionData.problem.message : undefined}
          />
          <Button type="submit">Set the clock</Button>
        </Form>
      </Card>
    </div>
  );
}
