// /dashboard/entitlements: the capabilities plans promise (beta, configs, ...), in the words the
// plan cards use, and which plans include each. A change applies to keys sold from then on; keys
// already sold keep what they were sold with (decision 054). Capability entitlements.manage.
import { useFetcher } from "react-router";
import { BadgeCheck } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { answer, answerInvalid } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { LICENCE_PLANS, PLAN_NAME } from "~/lib/plans";
import { entitlementSchema } from "~/lib/schemas/entitlements";
import { listEntitlements, saveEntitlement } from "~/server/catalogue/entitlements.server";
import type { Route } from "./+types/entitlements";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("entitlements.manage")];

export const meta: Route.MetaFunction = () => [{ title: `Entitlements | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  return { entitlements: await listEntitlements(app(context).db) };
}

const NOT_SAVED = "Not saved";

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "entitlement", entitlementSchema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: NOT_SAVED } });
  const { db } = app(context);
  const { name, label } = submission.value;
  const plans = LICENCE_PLANS.filter((plan) => (submission.value as Record<string, unknown>)[`plan-${plan}`] === "on");
  return answer(await saveEntitlement(db, submission.viewer.id, { name, label, plans }), {
    intent: "save",
    success: { title: "Saved", description: `${label} applies to keys sold from now on` },
  });
}

type Row = Route.ComponentProps["loaderData"]["entitlements"][number];

function EntitlementForm({ entitlement }: { entitlement?: Row }) {
  const fetcher = useFetcher();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, entitlementSchema, { title: NOT_SAVED });
  return (
    <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="grid gap-3 sm:grid-cols-[10rem_1fr_auto] sm:items-end">
      <input type="hidden" name="intent" value="save" />
      {entitlement ? (
        <div>
          <input type="hidden" name="name" value={entitlement.name} />
          <p className="text-xs text-muted">Name</p>
          <p className="font-mono text-sm">{entitlement.name}</p>
        </div>
      ) : (
        <Field label="Name" name="name" required maxLength={40} placeholder="beta" error={errors.name} />
      )}
      <Field label="Words on plan cards" name="label" required maxLength={60} defaultValue={entitlement?.label} error={errors.label} />
      {/* After the plans it saves (on a phone, and for the keyboard); beside the words from sm up. */}
      <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm sm:col-span-3 sm:row-start-2">
        <legend className="sr-only">Plans that include {entitlement?.label ?? "it"}</legend>
        {LICENCE_PLANS.map((plan) => (
          <label key={plan} className="flex items-center gap-2">
            <input
              type="checkbox"
              name={`plan-${plan}`}
              defaultChecked={entitlement?.plans.includes(plan)}
              className="size-4 accent-accent"
            />
            {PLAN_NAME[plan]}
          </label>
        ))}
      </fieldset>
      <Button
        type="submit"
        disabled={busy}
        aria-label={entitlement ? `Save ${entitlement.name}` : "Add entitlement"}
        className="sm:col-start-3 sm:row-start-1"
      >
        {entitlement ? "Save" : "Add"}
      </Button>
    </fetcher.Form>
  );
}

export default function Entitlements({ loaderData }: Route.ComponentProps) {
  return (
    <div className="space-y-6">
      <h1 className="flex items-center gap-2 text-3xl font-black">
        <BadgeCheck className="size-7 text-accent" aria-hidden /> Entitlements
      </h1>
      <p className="text-sm text-muted">
        What each plan includes. A sale copies its plan&apos;s entitlements onto the key; changing a plan here changes only keys sold
        afterwards.
      </p>
      <Card className="space-y-5">
        {loaderData.entitlements.map((entitlement) => (
          <div key={entitlement.name} className="border-b border-line pb-5 last:border-0 last:pb-0">
            <EntitlementForm entitlement={entitlement} />
          </div>
        ))}
      </Card>
      <Card>
        <h2 className="mb-3 text-lg font-bold">Add an entitlement</h2>
        <EntitlementForm />
      </Card>
    </div>
  );
}
