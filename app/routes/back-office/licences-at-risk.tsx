// /dashboard/licences-at-risk: licences checked from too many addresses or countries within the
// window (decision 093), with what their key watch saw; admins suspend, ban or dismiss each one
// (claimed first) and set the detection's thresholds, automatic suspension (off unless set) and the
// hold for risky orders (off by default). Support reads it.
import { useFetcher } from "react-router";
import * as v from "valibot";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerInvalid } from "~/http/answer.server";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { can } from "~/lib/roles";
import { fraudSettingsSchema, riskDecisionSchema } from "~/lib/schemas/fraud";
import { fraudSettingsOf, saveFraudSettings } from "~/server/blocks/fraud-settings.server";
import { decideRiskFlag, licencesAtRisk } from "~/server/licences/sharing.server";
import type { Route } from "./+types/licences-at-risk";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("risk.view")];

export const meta: Route.MetaFunction = () => [{ title: `Licences at risk | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db } = app(context);
  const [flags, settings] = await Promise.all([licencesAtRisk(db), fraudSettingsOf(db)]);
  return { flags, settings, mayManage: can(currentViewer(context).role, "risk.manage") };
}

const schema = v.variant("intent", [riskDecisionSchema, fraudSettingsSchema]);
const DONE = { suspend: "Suspended", ban: "Banned", dismiss: "Dismissed" } as const;

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "risk", schema);
  if (!submission.ok) return answerInvalid(submission, { titles: { invalid: "Not saved" } });
  const actor = { viewer: submission.viewer, ip: clientAddress(request) };
  const { db } = app(context);
  const input = submission.value;
  if (input.intent === "settings") {
    const { intent, ...settings } = input;
    return answer(await saveFraudSettings(db, actor, settings), {
      intent,
      success: { title: "Saved", description: "Shared-key detection and order holds follow the new settings." },
    });
  }
  return answer(await decideRiskFlag(db, actor, input.flagId, input.intent), {
    intent: input.intent,
    titles: { conflict: "Already decided" },
    success: { title: DONE[input.intent], description: "The licence's answers follow at its next check." },
  });
}

type Flag = Route.ComponentProps["loaderData"]["flags"][number];

// One fetcher for every decision, toasted by the page: a decided flag loses its buttons.
const DECIDE = "decide-flag";

function Decide({ flag }: { flag: Flag }) {
  const fetcher = useFetcher({ key: DECIDE });
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" className="mt-3 flex flex-wrap gap-2">
      <input type="hidden" name="flagId" value={flag.id} />
      {flag.state === "open" ? (
        <Button type="submit" name="intent" value="suspend" size="sm" disabled={busy}>
          Suspend
        </Button>
      ) : null}
      <Button type="submit" name="intent" value="ban" size="sm" variant="danger" disabled={busy}>
        Ban
      </Button>
      <Button type="submit" name="intent" value="dismiss" size="sm" variant="outline" disabled={busy}>
        {flag.state === "suspended" ? "Dismiss and lift" : "Dismiss"}
      </Button>
    </fetcher.Form>
  );
}

function FlagCard({ flag, mayManage }: { flag: Flag; mayManage: boolean }) {
  const countries = [...new Set(flag.evidence.sightings.flatMap((s) => (s.country ? [s.country] : [])))].toSorted();
  return (
    <Card as="article" aria-labelledby={`flag-${flag.id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <h2 id={`flag-${flag.id}`} className="font-mono text-sm">
          {flag.masked}
        </h2>
        <Badge tone={flag.state === "open" ? "orange" : flag.state === "dismissed" ? "gray" : "red"}>{flag.state}</Badge>
        {flag.autoSuspended ? <Badge tone="yellow">suspended automatically</Badge> : null}
        <span className="text-sm text-muted">
          {flag.product} · {flag.plan} · {flag.ownerEmail}
        </span>
      </div>
      <p className="mt-2 text-sm">
        Checked from {flag.addresses} addresses in {flag.countries} countries within {flag.evidence.windowHours} hours (flagged{" "}
        <LocalTime ms={flag.flaggedAt} format="datetime" />
        ).
      </p>
      {countries.length > 0 ? <p className="text-sm text-muted">Countries: {countries.join(", ")}</p> : null}
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer text-accent">Addresses seen</summary>
        <ul className="mt-2 space-y-1">
          {flag.evidence.sightings.map((s) => (
            <li key={s.address} className="flex flex-wrap gap-x-3">
              <span className="font-mono text-xs break-all">{s.address}</span>
              <span>{s.country ?? "?"}</span>
              <span className="text-muted">
                last <LocalTime ms={s.lastSeen} format="datetime" />
              </span>
            </li>
          ))}
        </ul>
      </details>
      {mayManage && (flag.state === "open" || flag.state === "suspended") ? <Decide flag={flag} /> : null}
    </Card>
  );
}

function Settings({ settings }: { settings: Route.ComponentProps["loaderData"]["settings"] }) {
  const fetcher = useFetcher();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, fraudSettingsSchema, { title: "Not saved" });
  return (
    <Card as="section" aria-labelledby="detection-settings">
      <h2 id="detection-settings" className="text-lg font-semibold">
        Detection settings
      </h2>
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} noValidate className="mt-4 grid gap-3 sm:grid-cols-3">
        <input type="hidden" name="intent" value="settings" />
        <Field
          label="Window (hours)"
          name="windowHours"
          inputMode="numeric"
          defaultValue={settings.windowHours}
          error={errors.windowHours}
        />
        <Field
          label="Flag at addresses"
          name="flagAddresses"
          inputMode="numeric"
          defaultValue={settings.flagAddresses}
          error={errors.flagAddresses}
        />
        <Field
          label="Flag at countries"
          name="flagCountries"
          inputMode="numeric"
          defaultValue={settings.flagCountries}
          error={errors.flagCountries}
        />
        <Field
          label="Suspend at addresses"
          name="suspendAddresses"
          inputMode="numeric"
          hint="Empty: never automatically"
          defaultValue={settings.suspendAddresses ?? ""}
          error={errors.suspendAddresses}
        />
        <Field
          label="Suspend at countries"
          name="suspendCountries"
          inputMode="numeric"
          hint="Empty: never automatically"
          defaultValue={settings.suspendCountries ?? ""}
          error={errors.suspendCountries}
        />
        <label className="flex items-center gap-2 self-end text-sm">
          <input type="checkbox" name="holdRiskyOrders" defaultChecked={settings.holdRiskyOrders} />
          Hold risky orders for review
        </label>
        <div className="sm:col-span-3">
          <Button type="submit" disabled={busy}>
            {busy ? "Saving..." : "Save settings"}
          </Button>
        </div>
      </fetcher.Form>
    </Card>
  );
}

export default function LicencesAtRisk({ loaderData }: Route.ComponentProps) {
  const { flags, settings, mayManage } = loaderData;
  useResultToast(useFetcher({ key: DECIDE }));
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">Licences at risk</h1>
      <p className="text-sm text-muted">
        Keys checked from {settings.flagAddresses} or more addresses, or {settings.flagCountries} or more countries, within{" "}
        {settings.windowHours} hours. Automatic suspension is{" "}
        {settings.suspendAddresses === null && settings.suspendCountries === null ? "off" : "on"}.
      </p>
      {flags.length === 0 ? (
        <EmptyState className="text-center" title="No licences at risk">
          A key checked from too many places shows up here.
        </EmptyState>
      ) : (
        <div className="space-y-3">
          {flags.map((flag) => (
            <FlagCard key={flag.id} flag={flag} mayManage={mayManage} />
          ))}
        </div>
      )}
      {mayManage ? <Settings settings={settings} /> : null}
    </div>
  );
}
