// A form's checks in the browser: the page's schema runs before anything is sent; the first
// problem is toasted (as the server would) and every field's message is shown next to it. The
// server's answer shows the same way: every field's message it sent, or its problem's field.
import { type FormEvent, useCallback, useEffect, useState } from "react";
import type * as v from "valibot";
import { type FieldErrors, formIssues } from "~/lib/form-schema";
import type { Problem } from "~/lib/result";
import { useToast } from "./toaster";

export function useFormCheck<S extends v.GenericSchema>(
  schema: S,
  options: { title: string | ((problem: Problem) => string); answer?: { ok: boolean; problem?: Problem; fieldErrors?: FieldErrors } | null },
) {
  const { toast } = useToast();
  const [errors, setErrors] = useState<FieldErrors>({});
  const { title, answer } = options;

  useEffect(() => {
    if (!answer) return;
    if (answer.ok || !answer.problem) return setErrors({});
    const { field, message } = answer.problem;
    setErrors(answer.fieldErrors ?? (field ? { [field]: message } : {}));
  }, [answer]);

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
