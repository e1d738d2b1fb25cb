// /dashboard/security: where the member is signed in (end one session, or all the others), their
// password and their passkeys (whose forms post to the nested passkeys route), a reseller's or staff
// member's API tokens for the seller API (decisions 096 and 097), and their own data:
// a copy of it (the nested data.json route) and deleting the account (decision 099). Two-factor
// authentication has its own page beside this one.
import { useId } from "react";
import { useFetcher } from "react-router";
import * as v from "valibot";
import { Bell, Download, KeyRound, Lock, LogOut, Monitor, Trash2 } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { PasskeysSection } from "./+shared/passkeys-section";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { Badge } from "~/components/ui/badge";
import { ConfirmedAction } from "~/components/confirmed-action";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { describedBy, Field, FieldError, SelectField } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { deleteAccountSchema, PASSWORD_MIN, securitySchema } from "~/lib/schemas/auth";
import { remindersSchema } from "~/lib/schemas/renewals";
import { apiTokenSchema, EXPIRY_DAYS, SCOPE_LABELS, scopeField } from "~/lib/schemas/api-tokens";
import { apiTokensCard, createApiToken, revokeApiToken } from "~/server/accounts/api-tokens.server";
import { remindersOn, setReminders } from "~/server/renewals/reminders.server";
import { deletionNeeds } from "~/server/accounts/account-closure.server";
import { deleteOwnAccount } from "~/server/privacy/account-deletion.server";
import { pageAndData, purgePages } from "~/http/edge-cache.server";
import { isDiscordConfigured, mayLinkDiscord, unlinkDiscord } from "~/server/accounts/discord-login.server";
import { discordSetup } from "~/server/discord/role-setup.server";
import { discordCardOf, linkSimulatedDiscord } from "~/server/discord/role-link.server";
import { queueRoleSync } from "~/server/discord/role-sync.server";
import { notFound } from "~/http/refusals.server";
import { DiscordCard } from "./+shared/discord-card";
import { listPasskeys } from "~/server/accounts/passkeys.server";
import { changePassword, endOneSession, endOtherSessions } from "~/server/accounts/security.server";
import { listSessions } from "~/server/accounts/session.server";
import { answer, answerInvalid, answerProblem } from "~/http/answer.server";
import { app, deletionDeps, linkDeps, mailingDeps, sessionDeps } from "~/http/context.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { passRetryAfter, throttledTitles } from "~/http/retry-after.server";
import { currentViewer } from "~/http/guards.server";
import { relyingPartyFor } from "~/http/passkeys.server";
import { readSubmission } from "~/http/submission.server";
import type { Route } from "./+types/security";
import { callerOf, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";
import { counted } from "~/lib/format";

export const meta: Route.MetaFunction = () => [{ title: `Security | ${BRAND}` }];

export const headers = passRetryAfter;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const viewer = currentViewer(context);
  // Each card's data is its own domain's read; they are asked at once, not one after another.
  const [sessions, passkeys, discord, deletion, reminders, apiTokens] = await Promise.all([
    listSessions(db, viewer.id, callerOf(request)),
    listPasskeys(db, viewer.id),
    discordCardOf(db, env, viewer.id),
    deletionNeeds(db, viewer.id),
    remindersOn(db, viewer.id),
    apiTokensCard(db, viewer),
  ]);
  return { sessions, passkeys, passkeysAvailable: relyingPartyFor(context, request).ok, discord, deletion, reminders, apiTokens };
}

// The page's forms: the account's own, and the renewal reminders' switch (decision 091).
const securityActions = v.variant("intent", [...securitySchema.options, remindersSchema, ...apiTokenSchema.options], "Unknown request");

export async function action({ request, context }: Route.ActionArgs) {
  const deps = sessionDeps(context);
  const viewer = currentViewer(context);
  const submission = await readSubmission(request, securityActions);
  if (!submission.ok) return answerInvalid(submission);
  const form = submission.value;
  switch (form.intent) {
    case "create-api-token":
      return answer(await createApiToken(deps.db, app(context).env.TOTP_ENCRYPTION_KEY, viewer, callerOf(request), form), {
        success: { title: "API token created", description: "Copy it now: it is not shown again." },
        titles: { unauthenticated: "Token not created", invalid: "Token not created", conflict: "Token not created", ...throttledTitles },
        intent: form.intent,
      });
    case "revoke-api-token":
      return answer(await revokeApiToken(deps.db, viewer, callerOf(request), form.token), {
        success: { title: "API token revoked", description: "Every use of it from now on is refused." },
        intent: form.intent,
      });
    case "renewal-reminders":
      await setReminders(deps.db, viewer.id, form.on);
      return answer(
        { ok: true, value: form.on },
        {
          success: (on) =>
            on
              ? { title: "Reminders on", description: "You get an e-mail before a licence ends, and once after." }
              : { title: "Reminders off", description: "No more renewal reminders." },
          intent: form.intent,
        },
      );
    case "end-session": {
      const result = await endOneSession(deps, viewer, callerOf(request), form.session);
      if (result.ok && result.value.endedCurrent) {
        return redirectWithToast(
          "/",
          { title: "Logged out", description: "Successfully signed out" },
          { headers: { "Set-Cookie": tokenCookie(forgetToken("session")) } },
        );
      }
      return answer(result, { success: { title: "Session ended", description: "That device is signed out." }, intent: form.intent });
    }
    case "end-other-sessions":
      return answer(await endOtherSessions(deps, viewer, callerOf(request)), {
        success: ({ ended }) => ({
          title: "Signed out everywhere else",
          description: ended === 0 ? "No other device was signed in." : `${counted(ended, "other session")} ended.`,
        }),
        intent: form.intent,
      });
    case "link-simulated-discord": {
      const { db, env } = app(context);
      if (isDiscordConfigured(env) || !discordSetup(env, db).simulated) throw notFound();
      const caller = callerOf(request);
      const allowed = await mayLinkDiscord(db, caller, viewer.id, form.password);
      const linked = allowed.ok ? await linkSimulatedDiscord(linkDeps(context), viewer, caller.ip) : allowed;
      return answer(linked, {
        success: { title: "Discord linked", description: "The simulated Discord account is linked; your roles follow in a moment." },
        titles: { unauthenticated: "Not linked", conflict: "Not linked", ...throttledTitles },
        intent: form.intent,
      });
    }
    case "unlink-discord": {
      const unlinked = await unlinkDiscord(deps.db, viewer.id, callerOf(request).ip);
      // The roles the shop gave that Discord account are taken back now.
      if (unlinked.ok) await queueRoleSync(app(context).env.JOB_QUEUE, [viewer.id]);
      return answer(unlinked, {
        success: { title: "Discord unlinked", description: "That Discord account can no longer log in to yours." },
        titles: { conflict: "Not unlinked" },
        intent: form.intent,
      });
    }
    case "delete-account": {
      const deleted = await deleteOwnAccount(deletionDeps(context), app(context).env.TOTP_ENCRYPTION_KEY, viewer, callerOf(request), form);
      if (!deleted.ok) {
        return answerProblem(deleted.problem, {
          titles: { unauthenticated: "Not deleted", conflict: "Not deleted", invalid: "Not deleted", ...throttledTitles },
          intent: form.intent,
        });
      }
      await purgePages(
        new URL(request.url).origin,
        deleted.value.reviewedPages.flatMap((handle) => pageAndData(`/product/${handle}`)),
      );
      return redirectWithToast(
        "/",
        { title: "Account deleted", description: "Your account is gone and your keys no longer work. A last e-mail confirms it." },
        { headers: { "Set-Cookie": tokenCookie(forgetToken("session")) } },
      );
    }
    case "change-password":
      return answer(await changePassword({ ...mailingDeps(context), ...deps }, viewer, callerOf(request), form), {
        success: { title: "Password changed", description: "Every other device has been signed out." },
        titles: { unauthenticated: "Wrong password", ...throttledTitles },
        intent: form.intent,
      });
  }
}

function SessionRow({ session }: { session: Route.ComponentProps["loaderData"]["sessions"][number] }) {
  const end = useFetcher<typeof action>();
  useResultToast(end);
  const ending = end.state !== "idle";
  return (
    <li className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center">
      <Monitor className="hidden size-5 shrink-0 text-muted sm:block" aria-hidden />
      <div className="min-w-0 flex-1 space-y-1 text-sm">
        <p className="flex flex-wrap items-center gap-2 font-semibold">
          {session.device}
          {session.current ? <Badge tone="green">This device</Badge> : null}
        </p>
        <p className="text-muted">{session.place ?? "Location unknown"}</p>
        <p className="text-xs text-muted">
          Signed in <LocalTime ms={session.createdAt} format="datetime" /> · last seen{" "}
          <LocalTime ms={session.lastSeenAt} format="datetime" />
        </p>
      </div>
      {session.current ? null : (
        <end.Form method="post">
          <input type="hidden" name="intent" value="end-session" />
          <input type="hidden" name="session" value={session.publicId} />
          <Button type="submit" variant="outline" disabled={ending} aria-label={`Sign out ${session.device}`}>
            <LogOut className="size-4" aria-hidden /> {ending ? "Signing out..." : "Sign out"}
          </Button>
        </end.Form>
      )}
    </li>
  );
}

/** Renewal reminders on or off: the e-mails before a licence ends, and once after it ended. */
function RemindersCard({ on }: { on: boolean }) {
  const toggle = useFetcher<typeof action>();
  useResultToast(toggle);
  const showing = toggle.formData ? toggle.formData.get("on") === "on" : on;
  return (
    <Card className="space-y-3">
      <h2 className="flex items-center gap-2 font-bold">
        <Bell className="size-4 text-accent" aria-hidden /> Renewal reminders
      </h2>
      <p className="text-sm text-muted">
        {showing
          ? "On: we e-mail you a few days before a weekly or monthly licence ends, and once after it ended, with a link to renew it."
          : "Off: you get no e-mail before or after a licence ends."}
      </p>
      <toggle.Form method="post">
        <input type="hidden" name="intent" value="renewal-reminders" />
        <input type="hidden" name="on" value={showing ? "off" : "on"} />
        <Button type="submit" variant="outline" disabled={toggle.state !== "idle"} aria-pressed={showing}>
          {showing ? "Turn reminders off" : "Turn reminders on"}
        </Button>
      </toggle.Form>
    </Card>
  );
}

function PasswordCard() {
  const change = useFetcher<typeof action>();
  useResultToast(change);
  const check = useFormCheck(securitySchema, { title: "Error", answer: change.data });
  const busy = change.state !== "idle";
  const changed = change.state === "idle" && change.data?.ok && change.data.intent === "change-password";
  return (
    <Card className="space-y-4">
      <h2 className="flex items-center gap-2 font-bold">
        <Lock className="size-4 text-accent" aria-hidden /> Password
      </h2>
      <p className="text-sm text-muted">Changing your password signs you out on every other device.</p>
      <change.Form method="post" className="grid gap-4 sm:grid-cols-2" onSubmit={check.onSubmit} key={changed ? "done" : "form"}>
        <input type="hidden" name="intent" value="change-password" />
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={check.errors.currentPassword}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          minLength={PASSWORD_MIN}
          required
          hint={`At least ${PASSWORD_MIN} characters.`}
          error={check.errors.newPassword}
        />
        <div className="sm:col-span-2">
          <Button type="submit" disabled={busy}>
            {busy ? "Changing..." : "Change password"}
          </Button>
        </div>
      </change.Form>
    </Card>
  );
}

type ApiTokensData = NonNullable<Route.ComponentProps["loaderData"]["apiTokens"]>;
type ApiTokenRow = ApiTokensData["tokens"][number];

function ApiTokenItem({ token }: { token: ApiTokenRow }) {
  const revoke = useFetcher<typeof action>();
  useResultToast(revoke);
  return (
    <li className="flex flex-col gap-2 py-3 text-sm sm:flex-row sm:items-center">
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex flex-wrap items-center gap-2 font-semibold wrap-anywhere">
          {token.name}
          {token.active ? null : <Badge tone="red">{token.revokedAt ? "Revoked" : "Expired"}</Badge>}
        </p>
        <p className="text-xs text-muted">{token.scopes.join(", ")}</p>
        <p className="text-xs text-muted">
          {token.lastUsedAt ? (
            <>
              Last used <LocalTime ms={token.lastUsedAt} format="datetime" /> from {token.lastUsedIp ?? "an unknown address"}
            </>
          ) : (
            "Never used"
          )}
          {token.expiresAt ? (
            <>
              {" "}
              · {token.active ? "expires" : "expired"} <LocalTime ms={token.expiresAt} format="datetime" />
            </>
          ) : null}
        </p>
      </div>
      {token.revokedAt ? null : (
        <revoke.Form method="post">
          <input type="hidden" name="intent" value="revoke-api-token" />
          <input type="hidden" name="token" value={token.id} />
          <Button type="submit" variant="danger" disabled={revoke.state !== "idle"} aria-label={`Revoke ${token.name}`}>
            {revoke.state !== "idle" ? "Revoking..." : "Revoke"}
          </Button>
        </revoke.Form>
      )}
    </li>
  );
}

const EXPIRY_OPTIONS = [
  { value: "", label: "Never" },
  ...EXPIRY_DAYS.map((days) => ({ value: days, label: days === "365" ? "In a year" : `In ${days} days` })),
];

/** Tokens for the seller API: made with the password (or a second-factor code), shown once, revocable. */
function ApiTokensCard({ scopes, tokens, secondFactor }: ApiTokensData) {
  const create = useFetcher<typeof action>();
  useResultToast(create);
  const check = useFormCheck(apiTokenSchema, { title: "Token not created", answer: create.data });
  const busy = create.state !== "idle";
  const made = create.state === "idle" && create.data?.ok && create.data.intent === "create-api-token" ? create.data.value : null;
  const token = made && typeof made === "object" && "token" in made ? made.token : null;
  const scopesId = useId();
  return (
    <Card as="section" aria-labelledby="api-tokens" className="space-y-4">
      <h2 id="api-tokens" className="flex items-center gap-2 font-bold">
        <KeyRound className="size-4 text-accent" aria-hidden /> API tokens
      </h2>
      <p className="text-sm text-muted">
        Tokens let your own programs use the{" "}
        <a href="/api/v1/openapi.json" className="underline">
          seller API
        </a>
        . A token is shown once; revoke it at once if it leaks.
      </p>
      {token ? (
        <div className="space-y-1 rounded-md border border-line p-3">
          <p className="text-sm font-semibold">Your new token (copy it now, it is not shown again):</p>
          <p role="status" aria-label="New API token" className="break-all font-mono text-sm">
            {token}
          </p>
        </div>
      ) : null}
      <create.Form method="post" className="grid gap-4 sm:grid-cols-2" onSubmit={check.onSubmit} key={token ?? "form"}>
        <input type="hidden" name="intent" value="create-api-token" />
        <Field label="Token name" name="name" required maxLength={60} error={check.errors.name} />
        <SelectField label="Expires" name="expiresInDays" options={EXPIRY_OPTIONS} error={check.errors.expiresInDays} />
        <fieldset className="space-y-2 sm:col-span-2" {...describedBy(scopesId, { error: check.errors.scopes })}>
          <legend className="text-sm font-medium text-zinc-200">Scopes</legend>
          {scopes.map((scope) => (
            <label key={scope} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                name={scopeField(scope)}
                defaultChecked={scope === "keys:read"}
                className="mt-0.5 size-4 shrink-0 accent-accent"
              />
              <span>
                <span className="font-mono">{scope}</span> <span className="text-muted">· {SCOPE_LABELS[scope]}</span>
              </span>
            </label>
          ))}
          <FieldError id={scopesId} error={check.errors.scopes} />
        </fieldset>
        <Field
          label="Your password"
          name="password"
          type="password"
          autoComplete="current-password"
          hint={secondFactor ? "Or leave it empty and give a code below." : undefined}
          error={check.errors.password}
        />
        {secondFactor ? (
          <Field
            label="Code from your authenticator app, or a recovery code"
            name="code"
            autoComplete="one-time-code"
            error={check.errors.code}
          />
        ) : null}
        <div className="sm:col-span-2">
          <Button type="submit" disabled={busy}>
            {busy ? "Creating..." : "Create token"}
          </Button>
        </div>
      </create.Form>
      {tokens.length === 0 ? (
        <p className="text-sm text-muted">No API tokens yet.</p>
      ) : (
        <ul className="divide-y divide-line" aria-label="API tokens">
          {tokens.map((row) => (
            <ApiTokenItem key={row.id} token={row} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function YourDataCard({ deletion }: { deletion: Route.ComponentProps["loaderData"]["deletion"] }) {
  const remove = useFetcher<typeof action>();
  useResultToast(remove);
  const busy = remove.state !== "idle";
  const refusal = deletion.staff
    ? "Staff accounts cannot be deleted: ask an admin to make yours a member account first."
    : !deletion.hasPassword
      ? 'Your account has no password yet: set one with "Forgot your password?" on the sign-in page, then come back to delete it.'
      : null;
  return (
    <Card as="section" aria-labelledby="your-data" className="space-y-4">
      <h2 id="your-data" className="font-bold">
        Your data
      </h2>
      <p className="text-sm text-muted">
        A copy of everything the shop keeps about you: your account and sign-ins, orders, keys with their PCs and checks, reviews, reseller
        and affiliate records, and your chat messages, as one JSON file.
      </p>
      <a href="/dashboard/security/data.json" download className={buttonClass("outline")}>
        <Download className="size-4" aria-hidden /> Download my data
      </a>
      <div className="space-y-3 border-t border-line pt-4">
        <h3 className="font-semibold">Delete your account</h3>
        <p className="text-sm text-muted">
          Every device is signed out, your chat messages and reviews are deleted, the Discord roles the shop gave you are taken back and
          your keys stop working. Your orders are kept for accounting, without your name or e-mail address. This cannot be undone.
        </p>
        {refusal ? <p className="text-sm text-muted">{refusal}</p> : null}
        <ConfirmedAction
          fetcher={remove}
          fields={{ intent: "delete-account" }}
          title="Delete your account?"
          cost="Your keys stop working at once and your chat messages and reviews are deleted. A last e-mail lists the keys that stopped. This cannot be undone."
          confirmLabel="Delete my account"
          busyLabel="Deleting..."
          schema={deleteAccountSchema}
          problemTitle="Not deleted"
          trigger={(open) => (
            <Button variant="danger" disabled={busy || refusal !== null} onClick={open}>
              <Trash2 className="size-4" aria-hidden /> {busy ? "Deleting..." : "Delete my account"}
            </Button>
          )}
        >
          {(errors) => (
            <>
              <Field
                label="Your password"
                name="password"
                type="password"
                autoComplete="current-password"
                required
                error={errors.password}
                data-autofocus
              />
              {deletion.secondFactor ? (
                <Field
                  label="Code from your authenticator app, or a recovery code"
                  name="code"
                  autoComplete="one-time-code"
                  required
                  error={errors.code}
                />
              ) : null}
            </>
          )}
        </ConfirmedAction>
      </div>
    </Card>
  );
}

export default function Security({ loaderData }: Route.ComponentProps) {
  const { sessions, passkeys, passkeysAvailable, discord, deletion, reminders, apiTokens } = loaderData;
  const others = useFetcher<typeof action>();
  useResultToast(others);
  const hasOthers = sessions.some((s) => !s.current);
  return (
    <div className="max-w-3xl space-y-6">
      <h1 className="text-3xl font-black">Security</h1>
      <Card className="space-y-2">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 className="font-bold">Where you're signed in</h2>
          <ConfirmedAction
            fetcher={others}
            fields={{ intent: "end-other-sessions" }}
            title="Sign out everywhere else?"
            cost="Every other device is signed out at once, and its open chat closes. This device stays signed in."
            confirmLabel="Sign out everywhere else"
            busyLabel="Signing out..."
            trigger={(open) => (
              <Button variant="danger" disabled={!hasOthers || others.state !== "idle"} onClick={open}>
                {others.state !== "idle" ? "Signing out..." : "Sign out everywhere else"}
              </Button>
            )}
          />
        </div>
        <p className="text-sm text-muted">If you do not recognise a device, sign it out and change your password.</p>
        <ul className="divide-y divide-line" aria-label="Sessions">
          {sessions.map((session) => (
            <SessionRow key={session.publicId} session={session} />
          ))}
        </ul>
      </Card>
      <PasswordCard />
      {apiTokens ? <ApiTokensCard {...apiTokens} /> : null}
      <PasskeysSection passkeys={passkeys} available={passkeysAvailable} />
      <RemindersCard on={reminders} />
      {discord ? <DiscordCard {...discord} /> : null}
      <YourDataCard deletion={deletion} />
    </div>
  );
}
