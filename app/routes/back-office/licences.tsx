// /dashboard/licences: staff only (members get 403 from the loader and the action alike, and the
// Access Denied screen). Looks a key up (GET ?key=) and shows everything about its licence; support
// and admins reset its PC without the owner's cooldown; admins alone ban or unban the key or its PC,
// pause and resume it, and add time to every running licence of a product after a detection or an
// outage (decision 047), or revoke many keys at once; those two are previewed and can be undone for
// an hour (decision 104). Each change is confirmed first and goes into the audit log.
import { Link } from "~/components/link";
import { ShieldCheck } from "~/components/icons";
import { Card } from "~/components/ui/card";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { checkForm } from "~/lib/form-schema";
import { can } from "~/lib/roles";
import { licenceAdminSchema, licenceInputTitle, licenceLookupSchema } from "~/lib/schemas/licences";
import { clientAddress } from "~/http/caller.server";
import { LIMITS } from "~/server/catalogue/queries.server";
import { compensateLicences, previewCompensation, recentCompensations, undoCompensation } from "~/server/licences/compensation.server";
import { previewRevocation, revokeAsPreviewed, undoRevocation } from "~/server/keys/bulk-revoke.server";
import { recentBulkChanges } from "~/server/platform/bulk-changes.server";
import { counted } from "~/lib/format";
import { type LicenceChange, licenceForAdmin, manageLicence, resetCooldownMs } from "~/server/licences/licences.server";
import { LicenceLookup } from "./+shared/licence-lookup";
import { CompensationCard } from "./+shared/licences/compensation-card";
import { RevokeManyCard } from "./+shared/licences/revoke-many-card";
import type { BulkKind } from "~/lib/bulk-changes";
import { ActionsCards } from "./+shared/licences/licence-actions";
import { listEntitlements } from "~/server/catalogue/entitlements.server";
import { LicenceCard } from "./+shared/licences/licence-card";
import type { Route } from "./+types/licences";
import { formatDuration } from "~/lib/format";
import { type Toast } from "~/lib/toast";

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
  const may = { ban: can(role, "licences.ban"), time: can(role, "licences.time"), entitlements: can(role, "entitlements.manage") };
  // The bulk changes this role may undo, latest first (decision 104).
  const kinds = [...(may.ban ? (["licence-revoke"] as const) : []), ...(may.time ? (["licence-time"] as const) : [])];
  const [time, entitlements, bulkChanges] = await Promise.all([
    may.time ? timeOffice(context) : null,
    may.entitlements ? listEntitlements(db) : [],
    kinds.length > 0 ? recentBulkChanges(db, kinds) : [],
  ]);
  const asked = new URL(request.url).searchParams.get("key") ?? "";
  const search = checkForm(licenceLookupSchema, { key: asked });
  if (!search.ok) return { key: asked, may, time, entitlements, bulkChanges, licence: null, error: search.problem.message };
  const { key } = search.value;
  return {
    key,
    may,
    time,
    entitlements,
    bulkChanges,
    licence: key ? await licenceForAdmin(db, key, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS)) : null,
    error: undefined,
  };
}

/** What each change means for the program, as the toast says it. */
function changeToast(change: LicenceChange): Toast {
  switch (change.intent) {
    case "reset-hwid":
      return { title: "PC reset", description: "PC reset: the next validation binds a new one" };
    case "ban-key":
      return { title: "Key banned", description: "Key banned: it answers BANNED from now on" };
    case "unban-key":
      return { title: "Key unbanned", description: "Key unbanned" };
    case "ban-hwid":
      return { title: "PC banned", description: "PC banned: every key answers BANNED on it" };
    case "unban-hwid":
      return { title: "PC unbanned", description: "PC unbanned" };
    case "pause":
      return { title: "Key paused", description: "Key paused: it answers SUSPENDED and its time stands still until it is resumed" };
    case "resume": {
      const moved = change.expiryMovedByMs;
      return {
        title: "Key resumed",
        description:
          moved === null
            ? "Key resumed: its clock starts at its first use"
            : `Key resumed: its expiry moved out by ${formatDuration(moved)}`,
      };
    }
    case "grant-entitlement":
      return { title: "Entitlement granted", description: "Granted to this key: its next check carries it" };
    case "remove-entitlement":
      return { title: "Entitlement removed", description: "Removed from this key: its next check no longer carries it" };
  }
}

const titles: ProblemTitles = {
  invalid: licenceInputTitle,
  "not-found": "Key not found",
  conflict: "Nothing changed",
};

export async function action({ request, context }: Route.ActionArgs) {
  // Support resets PCs; bans, pauses and added time are for admins (the domain checks the same rule).
  const submission = await readStaffAction(request, context, "licence", licenceAdminSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: form, viewer } = submission;
  const { db, env } = app(context);
  const ip = clientAddress(request);
  const bulk = { ...titles, "not-found": "Nothing changed" };
  switch (form.intent) {
    case "compensate-preview":
      return answer(await previewCompensation(db, viewer, form), {
        success: ({ count }) => ({ title: "Preview ready", description: `${counted(count, "licence")} would get the time` }),
        titles: { ...bulk, conflict: "Nothing added" },
        intent: form.intent,
      });
    case "compensate":
      return answer(await compensateLicences({ db, queue: env.JOB_QUEUE }, viewer, form, form.token, ip), {
        success: ({ licences }) => ({
          title: "Time added",
          description: `${form.days} day(s) added to ${licences} licence(s) of ${form.product}; their owners are being e-mailed. Undo takes it back within the hour`,
        }),
        titles: { ...bulk, conflict: "Nothing added" },
        intent: form.intent,
      });
    case "compensate-undo":
      return answer(await undoCompensation(db, viewer, form.token, ip), {
        success: ({ licences, days, product }) => ({
          title: "Time taken back",
          description: `${counted(days, "day")} taken back from ${counted(licences, "licence")} of ${product}`,
        }),
        titles: { ...bulk, conflict: "Nothing undone" },
        intent: form.intent,
      });
    case "revoke-preview":
      return answer(await previewRevocation(db, viewer, { keys: form.keys, reason: form.reason }), {
        success: ({ count }) => ({ title: "Preview ready", description: `${counted(count, "licence")} would be revoked` }),
        titles: { ...bulk, conflict: "Nothing to revoke" },
        intent: form.intent,
      });
    case "revoke-many":
      return answer(await revokeAsPreviewed(db, viewer, form.token, ip), {
        success: ({ revoked }) => ({
          title: "Keys revoked",
          description: `${counted(revoked, "licence")} revoked: ${revoked === 1 ? "it answers" : "they answer"} REVOKED from now on. Undo brings them back within the hour`,
        }),
        titles: { ...bulk, conflict: "Nothing revoked" },
        intent: form.intent,
      });
    case "revoke-undo":
      return answer(await undoRevocation(db, viewer, form.token, ip), {
        success: ({ restored, skipped }) => ({
          title: "Revocation undone",
          description:
            `${counted(restored, "licence")} work${restored === 1 ? "s" : ""} again as before` +
            (skipped > 0
              ? `; ${counted(skipped, "licence")} skipped: changed since the revocation, so left as ${skipped === 1 ? "it is" : "they are"}`
              : ""),
        }),
        titles: { ...bulk, conflict: "Nothing undone" },
        intent: form.intent,
      });
  }
  return answer(await manageLicence(db, viewer, form, ip), {
    success: changeToast,
    titles,
    intent: form.intent,
  });
}

export default function Licences({ loaderData }: Route.ComponentProps) {
  const { key, may, time, entitlements, bulkChanges, licence, error } = loaderData;
  const changesOf = (kind: BulkKind) => bulkChanges.filter((change) => change.kind === kind);
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
          <ActionsCards licence={licence} may={may} entitlements={entitlements} />
        </>
      ) : (
        <Card>
          <p className="font-semibold">No licence with this key</p>
          <p className="mt-1 text-sm text-muted">Check the key for typos; keys are matched exactly.</p>
        </Card>
      )}
      {may.ban ? <RevokeManyCard changes={changesOf("licence-revoke")} /> : null}
      {time ? <CompensationCard {...time} changes={changesOf("licence-time")} /> : null}
    </div>
  );
}
