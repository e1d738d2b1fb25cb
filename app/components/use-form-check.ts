// A form's checks in the browser: the page's schema runs before anything is sent; the first
// problem is toasted (as the server would) and every field's message is shown next to it. The
// server's answer shows the same way: every field's message it sent, or its problem's field.
import { type FormEvent, useCallback, useState } from "react";
import type * as v from "valibot";
import { type FieldErrors, formIssues } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { useToast } from "./toaster";

type Answer = { ok: boolean; problem?: Problem; fieldErrors?: FieldErrors };

/** The field messages an answer carries: every one it sent, or its problem's field. */
function answerErrors(answer: Answer | null | undefined): FieldErrors {
  if (!answer || answer.ok || !answer.problem) return {};
  const { field, message } = answer.problem;
  return answer.fieldErrors ?? (field ? { [field]: message } : {});
}

export function useFormCheck<S extends v.GenericSchema>(
  schema: S,
  options: { title: string | ((problem: Problem) => string); answer?: Answer | null },
) {
  const { toast } = useToast();
  const { title, answer } = options;
  // The answer's messages are there from the first render, the server's included: a form sent
  // before scripts ran (or without them) shows them too, and nothing clears them on hydration.
  const [errors, setErrors] = useState<FieldErrors>(() => answerErrors(answer));
  const [shownAnswer, setShownAnswer] = useState(answer);
  if (answer !== shownAnswer) {
    setShownAnswer(answer);
    if (answer) setErrors(answerErrors(answer));
  }

  const onSubmit = useCallback(
    (event: FormEvent<HTMLFormElement>) => {
      const issues = formIssues(schema, new FormData(event.currentTarget));
      setErrors(issues?.fields ?? {});
      if (!issues) return;
      event.preventDefault();
      const { problem } = issues;
      toast({ title: typeof title === "function" ? title(problem) : title, description: problem.message, variant: "destructive" });
    },
    [schema, title, toast],
  );

  return { errors, onSubmit, clear: useCallback(() => setErrors({}), []) };
}
