// POST /dashboard/security/passkeys: the Security page's passkey forms (add: options, then the
// prompt's answer; rename; remove). Under /dashboard, so only a signed-in member gets here, and
// only ever about their own passkeys.
import { answer, answerInvalid, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { answerCeremonyOptions, relyingPartyFor } from "~/http/passkeys.server";
import { readSubmission } from "~/http/submission.server";
import { passkeySettingsSchema } from "~/lib/schemas/passkeys";
import { registerPasskey, registrationOptions, removePasskey, renamePasskey } from "~/server/accounts/passkeys.server";
import type { Route } from "./+types/security.passkeys";
import { callerOf, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";

const titles: ProblemTitles = {
  invalid: "Passkey Error",
  unauthenticated: "Passkey Not Added",
  conflict: "Passkey Not Added",
  "not-found": "Passkey Not Found",
  unavailable: "Passkeys Unavailable",
};

export async function action({ request, context }: Route.ActionArgs) {
  const { db } = app(context);
  const viewer = currentViewer(context);
  const submission = await readSubmission(request, passkeySettingsSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const form = submission.value;
  switch (form.intent) {
    case "options": {
      const rp = relyingPartyFor(context, request);
      if (!rp.ok) return answerProblem(rp.problem, { titles, intent: form.intent });
      return answerCeremonyOptions(await registrationOptions(db, rp.value, viewer, callerOf(request)), titles);
    }
    case "register": {
      const rp = relyingPartyFor(context, request);
      if (!rp.ok) return answerProblem(rp.problem, { titles, intent: form.intent });
      return answer(await registerPasskey(db, rp.value, viewer, callerOf(request), form), {
        success: (passkey) => ({ title: "Passkey added", description: `"${passkey.name}" can now sign you in.` }),
        titles,
        intent: form.intent,
        headers: { "Set-Cookie": tokenCookie(forgetToken("ceremony")) },
      });
    }
    case "rename":
      return answer(await renamePasskey(db, viewer, callerOf(request), form.id, form.name), {
        success: (passkey) => ({ title: "Passkey renamed", description: `It is now called "${passkey.name}".` }),
        titles,
        intent: form.intent,
      });
    case "remove":
      return answer(await removePasskey(db, viewer, callerOf(request), form.id), {
        success: (passkey) => ({ title: "Passkey removed", description: `"${passkey.name}" can no longer sign you in.` }),
        titles,
        intent: form.intent,
      });
  }
}
