// /dashboard/licences: staff only (members get 403 from the loader and the action alike, and the
// Access Denied screen). Looks a key up (GET ?key=) and shows everything about its licence; support
// and admins reset its PC without the owner's cooldown, and admins alone ban or unban the key or its
// PC, each with a reason that goes into the audit log.
import { Link, useFetcher } from "react-router";
import { LICENCES_PATH, LicenceLookup } from "~/components/admin/licence-lookup";
import { copyText } from "~/components/copy";
import { Copy, ShieldCheck } from "~/components/icons";
import { DetailRow, LicenceDetails, ResetPcForm } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { useToast } from "~/components/toaster";
import { Badge } from "~/components/ui/badge";
import { Button, type ButtonVariant } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
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
import { type LicenceAdminInput, licenceAdminSchema, licenceLookupSchema } from "~/lib/schemas/licences";
import { clientAddress } from "~/server/accounts/throttle.server";
import { licenceCapability, licenceForAdmin, manageLicence, resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/dashboard.licences";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("licences.reset")];

export const meta: Route.MetaFunction = () => [{ title: `Licences | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const asked = new URL(request.url).searchParams.get("key") ?? "";
  const search = checkForm(licenceLookupSchema, { key: asked });
  if (!search.ok) return { key: asked, canBan: false, licence: null, error: search.problem.message };
  const { key } = search.value;
  const canBan = can(currentViewer(context).role, "licences.ban");
  return { key, canBan, licence: key ? await licenceForAdmin(db, key, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS)) : null, error: undefined };
}

const SUCCESS_TITLE: Record<LicenceAdminInput["intent"], string> = {
  "reset-hwid": "PC reset",
  "ban-key": "Key banned",
  "unban-key": "Key unbanned",
  "ban-hwid": "PC banned",
  "unban-hwid": "PC unbanned",
};

const inputTitle = (problem: Problem) => (problem.field === "reason" ? "Reason required" : "Error");

const titles: ProblemTitles = {
  invalid: inputTitle,
  "not-found": "Key not found",
  conflict: "Nothing changed",
};

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, licenceAdminSchema);
  if (!submission.ok) return answerProblem(submission.problem, { titles });
  const form = submission.value;
  // Support resets PCs; bans are for admins (manageLicence checks the same rule).
  const viewer = assertCapability(context, licenceCapability(form.intent));
  return answer(await manageLicence(app(context).db, viewer, form, clientAddress(request)), {
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

/** One ban form: with a reason to ban, a single button to lift the ban. */
function BanForm({ fields, label, variant, reasonLabel }: { fields: Record<string, string>; label: string; variant: ButtonVariant; reasonLabel?: string }) {
  const fetcher = useFetcher<typeof action>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, licenceAdminSchema, { title: inputTitle });
  return (
    <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {reasonLabel ? <Field label={reasonLabel} name="reason" required maxLength={200} autoComplete="off" className="sm:flex-1" error={errors.reason} /> : null}
      <Button type="submit" variant={variant} disabled={busy}>
        {busy ? "Saving..." : label}
      </Button>
    </fetcher.Form>
  );
}

function ActionsCards({ licence, canBan }: { licence: AdminLicenceView; canBan: boolean }) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      {canBan ? <KeyBanCard licence={licence} /> : null}
      <Card className="space-y-3">
        <h2 className="font-bold">PC</h2>
        {licence.hwid === null ? (
          <p className="text-sm text-muted">No PC bound: the next validation binds one.</p>
        ) : (
          <>
            <p className="text-sm text-muted">Resetting frees the key for a new PC at once (the owner's cooldown does not apply).</p>
            <ResetPcForm licence={licence} action={LICENCES_PATH} />
            {!canBan ? null : licence.hwidBan ? (
              <BanForm fields={{ intent: "unban-hwid", hwid: licence.hwid }} label="Unban PC" variant="outline" />
            ) : (
              <BanForm fields={{ intent: "ban-hwid", hwid: licence.hwid }} label="Ban PC" variant="danger" reasonLabel="Reason for banning the PC" />
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
          <BanForm fields={{ intent: "unban-key", licenceId: id }} label="Unban key" variant="outline" />
        </>
      ) : (
        <>
          <p className="text-sm text-muted">A banned key answers BANNED on every PC. The owner sees that it is banned.</p>
          <BanForm fields={{ intent: "ban-key", licenceId: id }} label="Ban key" variant="danger" reasonLabel="Reason for banning the key" />
        </>
      )}
    </Card>
  );
}

export default function Licences({ loaderData }: Route.ComponentProps) {
  const { key, canBan, licence, error } = loaderData;
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
          <ActionsCards licence={licence} canBan={canBan} />
        </>
      ) : (
        <Card>
          <p className="font-semibold">No licence with this key</p>
          <p className="mt-1 text-sm text-muted">Check the key for typos; keys are matched exactly.</p>
        </Card>
      )}
    </div>
  );
}
