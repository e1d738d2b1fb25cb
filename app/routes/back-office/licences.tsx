// /dashboard/licences: staff only (members get 403 from the loader and the action alike, and the
// Access Denied screen). Looks a key up (GET ?key=) and shows everything about its licence; support
// and admins reset its PC without the owner's cooldown; admins alone ban or unban the key or its PC,
// pause and resume it, and add time to every running licence of a product after a detection or an
// outage (decision 047). Each change is confirmed first and goes into the audit log.
import { useEffect, useState } from "react";
import { Link, useFetcher } from "react-router";
import { LICENCES_PATH, LicenceLookup } from "./+shared/licence-lookup";
import { copyText } from "~/components/copy";
import { Copy, ShieldCheck } from "~/components/icons";
import { DetailRow, LicenceDetails, ResetPcForm } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { ConfirmedAction } from "~/components/confirmed-action";
import { Button, type ButtonVariant } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Dialog } from "~/components/ui/dialog";
import { Field, SelectField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { answer, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { assertCapability, currentViewer, requireCapability } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import type { AdminLicenceView } from "~/lib/licences";
import { PLAN_TERM } from "~/lib/plans";
import type { Problem } from "~/lib/result";
import { can } from "~/lib/roles";
import { compensationSchema, type LicenceChangeInput, licenceAdminSchema, licenceLookupSchema, MAX_COMPENSATION_DAYS } from "~/lib/schemas/licences";
import { clientAddress } from "~/server/accounts/throttle.server";
import { LIMITS } from "~/server/catalogue/queries.server";
import { compensateLicences, recentCompensations } from "~/server/licences/compensation.server";
import { licenceCapability, licenceForAdmin, manageLicence, resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/licences";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("licences.reset")];

export const meta: Route.MetaFunction = () => [{ title: `Licences | ${BRAND}` }];

/** What an admin may add time to: the catalogue's products, and the latest compensations. */
async function timeOffice(context: Route.LoaderArgs["context"]) {
  const { db, catalogue } = app(context);
  const [products, compensations] = await Promise.all([
    catalogue
      .listProducts({ first: LIMITS.adminProducts, variantsFirst: 1, imagesFirst: 1 })
      .then((list) => list.map((p) => p.title))
      .catch((error: unknown) => {
        console.error("Failed to load products for compensations:", error);
        return [] as string[];
      }),
    recentCompensations(db),
  ]);
  return { products, compensations };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const role = currentViewer(context).role;
  const may = { ban: can(role, "licences.ban"), time: can(role, "licences.time") };
  const time = may.time ? await timeOffice(context) : null;
  const asked = new URL(request.url).searchParams.get("key") ?? "";
  const search = checkForm(licenceLookupSchema, { key: asked });
  if (!search.ok) return { key: asked, may, time, licence: null, error: search.problem.message };
  const { key } = search.value;
  return { key, may, time, licence: key ? await licenceForAdmin(db, key, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS)) : null, error: undefined };
}

const SUCCESS_TITLE: Record<LicenceChangeInput["intent"], string> = {
  "reset-hwid": "PC reset",
  "ban-key": "Key banned",
  "unban-key": "Key unbanned",
  "ban-hwid": "PC banned",
  "unban-hwid": "PC unbanned",
  pause: "Key paused",
  resume: "Key resumed",
};

const inputTitle = (problem: Problem) => (problem.field === "reason" ? "Reason required" : problem.field === "days" ? "Days required" : "Error");

const titles: ProblemTitles = {
  invalid: inputTitle,
  "not-found": "Key not found",
  conflict: "Nothing changed",
};

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, licenceAdminSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles });
  const form = submission.value;
  // Support resets PCs; bans, pauses and added time are for admins (the domain checks the same rule).
  const viewer = assertCapability(context, licenceCapability(form.intent));
  const { db, env } = app(context);
  if (form.intent === "compensate") {
    return answer(await compensateLicences({ db, queue: env.FULFILMENT_QUEUE }, viewer, form, clientAddress(request)), {
      success: ({ licences }) => ({ title: "Time added", description: `${form.days} day(s) added to ${licences} licence(s) of ${form.product}; their owners are being e-mailed` }),
      titles: { ...titles, conflict: "Nothing added" },
      intent: form.intent,
    });
  }
  return answer(await manageLicence(db, viewer, form, clientAddress(request)), {
    success: (message) => ({ title: SUCCESS_TITLE[form.intent], description: message }),
    titles,
    intent: form.intent,
  });
}

const planLabel = (plan: AdminLicenceView["plan"]) => (plan === "lifetime" ? "Lifetime" : `${plan.charAt(0).toUpperCase()}${plan.slice(1)} (${PLAN_TERM[plan]})`);

function LicenceCard({ licence }: { licence: AdminLicenceView }) {
  const { toast } = useToast();
  return (
    <Card className="space-y-5">
      <div className="space-y-1">
        <h2 className="flex items-center gap-2 font-mono text-lg font-bold break-all">
          {licence.key}
          <button type="button" className="shrink-0 rounded p-1 text-muted hover:text-white" aria-label="Copy licence key" onClick={() => copyText(licence.key, toast, { title: "Code copied to clipboard!" })}>
            <Copy className="size-4" aria-hidden />
          </button>
        </h2>
        <p className="text-sm text-muted">
          {licence.product} — {planLabel(licence.plan)}
        </p>
      </div>
      <LicenceDetails licence={licence} reader="admin" showExpiry>
        <DetailRow label="Owner">{licence.ownerEmail}</DetailRow>
        <DetailRow label="Order">{licence.orderId ? <OrderRef name={licence.orderName} id={licence.orderId} showId /> : "Generated in a reseller panel"}</DetailRow>
        <DetailRow label="Owner's next reset">{licence.nextOwnerResetAt === null ? "Any time" : <LocalTime ms={licence.nextOwnerResetAt} />}</DetailRow>
        {licence.state === "banned" ? <DetailRow label="Key ban reason">{licence.banReason}</DetailRow> : null}
        {licence.ownerBan ? (
          <DetailRow label="Owner's account">
            <Badge tone="red">Banned</Badge>
            <span className="mt-1 block">
              The key answers BANNED until the account is unbanned{licence.ownerBan.reason ? ` · ${licence.ownerBan.reason}` : ""}{" "}
              <span className="text-muted">
                · since <LocalTime ms={licence.ownerBan.bannedAt} />
              </span>
            </span>
          </DetailRow>
        ) : null}
        {licence.hwid === null ? null : (
          <DetailRow label="PC ban">
            {licence.hwidBan ? (
              <>
                <Badge tone="red">Banned</Badge>
                <span className="mt-1 block">
                  {licence.hwidBan.reason} <span className="text-muted">· since <LocalTime ms={licence.hwidBan.bannedAt} /></span>
                </span>
              </>
            ) : (
              "Not banned"
            )}
          </DetailRow>
        )}
      </LicenceDetails>
    </Card>
  );
}

/**
 * One change to the licence behind a confirmation that says what it costs; with `reasonLabel`, the
 * dialog asks for the reason the audit log keeps. Undoing a change (unban, resume) needs no dialog.
 */
function LicenceAction({
  fields,
  label,
  variant,
  title,
  cost,
  reasonLabel,
}: {
  fields: Record<string, string>;
  label: string;
  variant: ButtonVariant;
  title?: string;
  cost?: string;
  reasonLabel?: string;
}) {
  const fetcher = useFetcher<typeof action>();
  useResultToast(fetcher);
  const busy = fetcher.state !== "idle";
  if (!title || !cost) {
    return (
      <fetcher.Form method="post">
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Button type="submit" variant={variant} disabled={busy}>
          {busy ? "Saving..." : label}
        </Button>
      </fetcher.Form>
    );
  }
  return (
    <ConfirmedAction
      fetcher={fetcher}
      fields={fields}
      title={title}
      cost={cost}
      confirmLabel={label}
      busyLabel="Saving..."
      variant={variant}
      schema={reasonLabel ? licenceAdminSchema : undefined}
      problemTitle={inputTitle}
      trigger={(open) => (
        <Button variant={variant} onClick={open}>
          {label}
        </Button>
      )}
    >
      {reasonLabel ? (errors) => <Field label={reasonLabel} name="reason" required maxLength={200} autoComplete="off" error={errors.reason} data-autofocus /> : undefined}
    </ConfirmedAction>
  );
}

function ActionsCards({ licence, may }: { licence: AdminLicenceView; may: { ban: boolean; time: boolean } }) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      {may.ban ? <KeyBanCard licence={licence} /> : null}
      {may.time ? <PauseCard licence={licence} /> : null}
      <Card className="space-y-3">
        <h2 className="font-bold">PC</h2>
        {licence.hwid === null ? (
          <p className="text-sm text-muted">No PC bound: the next validation binds one.</p>
        ) : (
          <>
            <p className="text-sm text-muted">Resetting frees the key for a new PC at once (the owner's cooldown does not apply).</p>
            <ResetPcForm licence={licence} action={LICENCES_PATH} />
            {!may.ban ? null : licence.hwidBan ? (
              <LicenceAction fields={{ intent: "unban-hwid", hwid: licence.hwid }} label="Unban PC" variant="outline" />
            ) : (
              <LicenceAction
                fields={{ intent: "ban-hwid", hwid: licence.hwid }}
                label="Ban PC"
                variant="danger"
                title="Ban this PC?"
                cost="Every key answers BANNED on this PC, this one and any other, until the ban is lifted."
                reasonLabel="Reason for banning the PC"
              />
            )}
          </>
        )}
      </Card>
    </div>
  );
}

function KeyBanCard({ licence }: { licence: AdminLicenceView }) {
  const id = String(licence.id);
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Key</h2>
      {licence.state === "banned" ? (
        <>
          <p className="text-sm text-muted">The key answers BANNED on every PC until the ban is lifted.</p>
          <LicenceAction fields={{ intent: "unban-key", licenceId: id }} label="Unban key" variant="outline" />
        </>
      ) : (
        <>
          <p className="text-sm text-muted">A banned key answers BANNED on every PC. The owner sees that it is banned.</p>
          <LicenceAction
            fields={{ intent: "ban-key", licenceId: id }}
            label="Ban key"
            variant="danger"
            title="Ban this key?"
            cost={`${licence.key} stops working on every PC at once, and its owner sees that it is banned. Its time keeps running.`}
            reasonLabel="Reason for banning the key"
          />
        </>
      )}
    </Card>
  );
}

/** Pausing stops a key and its clock; resuming gives back the paused time. */
function PauseCard({ licence }: { licence: AdminLicenceView }) {
  const id = String(licence.id);
  if (licence.state === "banned" || licence.state === "revoked" || licence.state === "expired") return null;
  return (
    <Card className="space-y-3">
      <h2 className="font-bold">Pause</h2>
      {licence.state === "paused" ? (
        <>
          <p className="text-sm text-muted">
            Paused since <LocalTime ms={licence.pausedAt!} format="datetime" />. Resuming moves its expiry out by the time it was paused.
          </p>
          <LicenceAction fields={{ intent: "resume", licenceId: id }} label="Resume key" variant="outline" />
        </>
      ) : (
        <>
          <p className="text-sm text-muted">A paused key answers SUSPENDED and its time stands still; the owner sees it paused.</p>
          <LicenceAction
            fields={{ intent: "pause", licenceId: id }}
            label="Pause key"
            variant="danger"
            title="Pause this key?"
            cost={`${licence.key} stops working at once (the loader is told SUSPENDED) until it is resumed. Its time stands still meanwhile, so the owner loses none of it.`}
            reasonLabel="Reason for pausing the key"
          />
        </>
      )}
    </Card>
  );
}

const PLAN_CHOICES = [
  { value: "", label: "Every timed plan" },
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly" },
  { value: "monthly", label: "Monthly" },
];

/** Adds days to every running licence of a product (or plan) after a detection or an outage. */
function CompensationCard({ products, compensations }: NonNullable<Route.ComponentProps["loaderData"]["time"]>) {
  const fetcher = useFetcher<typeof action>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, compensationSchema, { title: inputTitle, answer: fetcher.data?.intent === "compensate" ? fetcher.data : null });
  const [confirming, setConfirming] = useState<FormData | null>(null);
  const done = fetcher.state === "idle" && fetcher.data?.ok === true && fetcher.data.intent === "compensate";
  useEffect(() => {
    if (done) setConfirming(null);
  }, [done]);
  const asked = confirming ? { product: String(confirming.get("product")), plan: String(confirming.get("plan")), days: String(confirming.get("days")) } : null;
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Add time after downtime</h2>
      <p className="text-sm text-muted">
        After a detection or an outage, add days to every running licence of a product (or one plan). Each reason counts once per product; owners get an
        e-mail. Keys not yet activated have lost nothing and keep their full term.
      </p>
      <form
        ref={formRef}
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-end"
        onSubmit={(event) => {
          onSubmit(event);
          if (event.defaultPrevented) return;
          // Checked: the dialog asks before anything is sent.
          event.preventDefault();
          setConfirming(new FormData(event.currentTarget));
        }}
      >
        <SelectField label="Product" name="product" required placeholder="Choose a product..." options={products.map((p) => ({ value: p, label: p }))} error={errors.product} className="lg:col-span-2" />
        <SelectField label="Plan" name="plan" options={PLAN_CHOICES} error={errors.plan} />
        <Field label={`Days to add (1 to ${MAX_COMPENSATION_DAYS})`} name="days" inputMode="numeric" required error={errors.days} />
        <Field label="Reason" name="reason" required maxLength={200} autoComplete="off" hint="Shown to owners, e.g. Detection on Nov 20" error={errors.reason} className="sm:col-span-2 lg:col-span-3" />
        <input type="hidden" name="intent" value="compensate" />
        <Button type="submit" disabled={busy} className="lg:mb-6">
          Add time
        </Button>
      </form>
      <Dialog
        open={confirming !== null}
        onClose={() => setConfirming(null)}
        title="Add time to every running licence?"
        description={
          asked
            ? `${asked.days} day(s) go on every running ${asked.plan || "timed"} licence of ${asked.product}, and each owner is e-mailed. It cannot be taken back, and this reason cannot be used for ${asked.product} again.`
            : undefined
        }
      >
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="ghost" onClick={() => setConfirming(null)} data-autofocus>
            Cancel
          </Button>
          <Button disabled={busy} onClick={() => confirming && fetcher.submit(confirming, { method: "post" })}>
            {busy ? "Adding..." : "Add time"}
          </Button>
        </div>
      </Dialog>
      {compensations.length > 0 ? (
        <div>
          <h3 className="text-sm font-semibold">Latest</h3>
          <ul className="mt-2 divide-y divide-line text-sm">
            {compensations.map((c) => (
              <li key={c.id} className="flex flex-wrap gap-x-3 gap-y-1 py-2">
                <span className="font-medium">
                  +{c.days} day(s) · {c.product} {c.plan ? `(${c.plan})` : ""}
                </span>
                <span className="text-muted">{c.reason}</span>
                <span className="text-muted sm:ml-auto">
                  {c.licenceCount ?? 0} licence(s) · <LocalTime ms={c.createdAt} />
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}

export default function Licences({ loaderData }: Route.ComponentProps) {
  const { key, may, time, licence, error } = loaderData;
  return (
    <div className="space-y-8">
      <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
        LICENCES <ShieldCheck className="size-6 text-accent" aria-label="Staff" />
      </h1>
      <Card>
        <h2 className="font-bold">Look up a key</h2>
        <p className="mt-1 text-sm text-muted">Any key the shop handed out: sold, fulfilled by hand or generated by a reseller.</p>
        <p className="mt-1 text-sm text-muted">
          The shop's program checks keys through the licence API.{" "}
          <Link to="/docs/licence-api" className="text-accent underline">
            Licence API and SDKs for its developer
          </Link>
        </p>
        <div className="mt-4">
          <LicenceLookup defaultKey={key} error={error} />
        </div>
      </Card>
      {!key || error ? null : licence ? (
        <>
          <LicenceCard licence={licence} />
          <ActionsCards licence={licence} may={may} />
        </>
      ) : (
        <Card>
          <p className="font-semibold">No licence with this key</p>
          <p className="mt-1 text-sm text-muted">Check the key for typos; keys are matched exactly.</p>
        </Card>
      )}
      {time ? <CompensationCard {...time} /> : null}
    </div>
  );
}
